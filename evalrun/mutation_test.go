package evalrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/report"
)

// Tests here close mutants that scripts/mutation found alive in evalrun.

// compare --detect takes a drop in pass rate from 0 (no sizing lines) to 1
// inclusive; outside that it is a usage error.
func TestCompareDetectBounds(t *testing.T) {
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a.json"), filepath.Join(tmp, "b.json")
	writeRun(t, a, "openai/gpt-x", map[string][2]int{"one": {3, 5}})
	writeRun(t, b, "openai/gpt-x", map[string][2]int{"one": {2, 4}})
	for _, tc := range []struct {
		detect string
		code   int
	}{{"0", exitOK}, {"1", exitOK}, {"-0.01", exitUsage}, {"1.01", exitUsage}} {
		code, out, errOut := runCmd(t, "compare", "--detect", tc.detect, a, b)
		if code != tc.code {
			t.Errorf("--detect %s: exit %d, want %d\n%s%s", tc.detect, code, tc.code, out, errOut)
		}
		if tc.code == exitUsage && !strings.Contains(errOut, "want a drop in pass rate from 0 to 1") {
			t.Errorf("--detect %s: stderr %q does not say the range", tc.detect, errOut)
		}
	}
}

// eval --min-pass takes a rate from 0 to 1 inclusive: 0 lets a flaky model
// pass, 1 asks for every trial to pass; outside that it is a usage error.
func TestEvalMinPassBounds(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	args := []string{"eval", "--model", "scripted/alternate", "--trials", "4", "--parallel", "1"}
	for _, tc := range []struct {
		minPass string
		code    int
	}{{"0", exitOK}, {"1", exitFailed}, {"-0.01", exitUsage}, {"1.01", exitUsage}} {
		code, out, errOut := runCmd(t, append(args, "--min-pass", tc.minPass, dir)...)
		if code != tc.code {
			t.Errorf("--min-pass %s on a model passing 2/4: exit %d, want %d\n%s%s", tc.minPass, code, tc.code, out, errOut)
		}
	}
}

// eval --rpm and --tpm take N or PROVIDER=N with N at least 1: a limit of 1
// is a limit, 0 is a usage error. The clock is virtual, so the waits the
// limits impose take no time.
func TestEvalRateLimitsOfOne(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	for _, tc := range []struct {
		flags []string
		code  int
	}{
		{[]string{"--rpm", "1"}, exitOK},
		{[]string{"--tpm", "scripted=1"}, exitOK},
		{[]string{"--rpm", "0"}, exitUsage},
		{[]string{"--tpm", "scripted=0"}, exitUsage},
	} {
		args := append([]string{"eval", "--model", "scripted/right", "--trials", "2", "--parallel", "1"}, tc.flags...)
		var out, errb bytes.Buffer
		code := run(context.Background(), append(args, dir), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, clock: clock.NewVirtual(clock.Epoch)})
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s%s", tc.flags, code, tc.code, out.String(), errb.String())
		}
		if tc.code == exitUsage && !strings.Contains(errb.String(), "want N or PROVIDER=N with N at least 1") {
			t.Errorf("%v: stderr %q does not say what a limit must be", tc.flags, errb.String())
		}
	}
}

// Off a terminal, eval prints a progress line at most every 10 seconds of
// the run, and always for the last trial: trials that end at the same
// instant (a virtual clock that no one advances) print the first and the
// last line only.
func TestEvalProgressLinesAreSpaced(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"eval", "--model", "scripted/right", "--trials", "4", "--parallel", "1", dir},
		&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, clock: clock.NewVirtual(clock.Epoch)})
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	var lines []string
	for l := range strings.SplitSeq(errb.String(), "\n") {
		if strings.Contains(l, "/4 trials") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "1/4 trials") || !strings.HasPrefix(lines[1], "4/4 trials") {
		t.Errorf("progress lines %q, want the first trial's and the last's\nstderr:\n%s", lines, errb.String())
	}
}

// An eval shard that holds no selected scenario writes its empty report
// (so that merge finds the shard) and exits 0 without running anything.
func TestEvalEmptyShard(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	jsonPath := filepath.Join(t.TempDir(), "shard.json")
	code, out, errOut := runCmd(t, "eval", "--model", "scripted/right", "--run", "^nothing$", "--shard", "2/2", "--json", jsonPath, dir)
	if code != exitOK || !strings.Contains(errOut, "shard 2/2 holds no selected scenario") {
		t.Fatalf("exit %d, want 0 and the empty shard named\n%s%s", code, out, errOut)
	}
	if strings.Contains(errOut, "trials") || strings.Contains(out, "trials") {
		t.Errorf("an empty shard ran trials:\nstdout:\n%s\nstderr:\n%s", out, errOut)
	}
	r := readReport(t, jsonPath)
	if r.Shard == nil || *r.Shard != (report.Shard{Index: 2, Total: 2}) || len(r.Scenarios) != 0 || len(r.Models) != 0 || !r.Summary.OK {
		t.Errorf("report %+v, want the empty report of shard 2/2", r)
	}
}

// progName, the name hints give the program, is the base name it was run
// by, without .exe, or evalrun for go test's and go run's binaries.
func TestProgName(t *testing.T) {
	defer func(old string) { os.Args[0] = old }(os.Args[0])
	for arg0, want := range map[string]string{
		"/usr/local/bin/supportrun":        "supportrun",
		`supportrun.exe`:                   "supportrun",
		"./evalrun":                        "evalrun",
		"/tmp/go-build1/b001/evalrun.test": "evalrun",
		"":                                 "evalrun",
	} {
		os.Args[0] = arg0
		if got := progName(); got != want {
			t.Errorf("run as %q: progName %q, want %q", arg0, got, want)
		}
	}
}

// Main reads standard input from Options.Stdin when it is set, not from the
// process's own.
func TestMainReadsOptionsStdin(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"repair"}, &out, &errb, &Options{Stdin: strings.NewReader(`{"a": 1,}`)})
	if code != exitOK || out.String() != `{"output":"{\"a\": 1}","fixes":["trailing_comma"]}`+"\n" {
		t.Errorf("repair of Options.Stdin: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// Run with no arguments, evalrun replays ./scenarios; when there is none it
// says so and exits 2 (no panic on the missing first argument).
func TestMainWithoutArguments(t *testing.T) {
	t.Chdir(t.TempDir())
	var out, errb bytes.Buffer
	code := Main(context.Background(), nil, &out, &errb, &Options{Stdin: strings.NewReader("")})
	if code != exitUsage || !strings.Contains(errb.String(), "scenarios") {
		t.Errorf("no arguments, no ./scenarios: exit %d, stdout %q, stderr %q; want 2 naming scenarios", code, out.String(), errb.String())
	}
}

// extract reads a text of exactly the stdin limit (16 MiB) whole; only a
// longer one is refused.
func TestExtractStdinAtTheLimit(t *testing.T) {
	code, out, errOut := runExtractCmd(t, strings.Repeat("x", maxStdinText), "--tools", "get_time")
	if code != exitOK || errOut != "" || !strings.HasPrefix(out, `{"calls":[],"content":"xxx`) || strings.Count(out, "x") != maxStdinText {
		t.Errorf("a text of exactly %d bytes: exit %d, %d bytes of stdout, stderr %q; want it extracted", maxStdinText, code, len(out), errOut)
	}
}

// The expect block record --new writes pins the final text with equals when
// it is one line of at most 200 bytes; a longer one is left out.
func TestExpectNodeFinalUpTo200Bytes(t *testing.T) {
	red := redact.Default()
	for _, tc := range []struct {
		final string
		want  bool
	}{{strings.Repeat("a", 200), true}, {strings.Repeat("a", 201), false}, {"two\nlines", false}} {
		n := expectNode(&harness.Outcome{Termination: "final_text", Iterations: 1, Final: tc.final}, red)
		got := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "final" {
				got = true
			}
		}
		if got != tc.want {
			t.Errorf("a final text of %d bytes: final pinned %v, want %v", len(tc.final), got, tc.want)
		}
	}
}

// compare --fail-on drop fails on any scenario whose pass rate fell, however
// small the drop, and only then: a pass rate that held or rose exits 0.
func TestCompareFailOnDropOnlyOnADrop(t *testing.T) {
	tmp := t.TempDir()
	base := filepath.Join(tmp, "a.json")
	writeRun(t, base, "openai/gpt-x", map[string][2]int{"one": {2, 4}, "two": {3, 4}})
	for _, tc := range []struct {
		name   string
		counts map[string][2]int
		code   int
	}{
		{"held", map[string][2]int{"one": {2, 4}, "two": {3, 4}}, exitOK},
		{"rose", map[string][2]int{"one": {3, 4}, "two": {4, 4}}, exitOK},
		{"fell by one trial", map[string][2]int{"one": {2, 4}, "two": {2, 4}}, exitFailed},
	} {
		later := filepath.Join(tmp, "b.json")
		writeRun(t, later, "openai/gpt-x", tc.counts)
		if code, out, errOut := runCmd(t, "compare", "--fail-on", "drop", base, later); code != tc.code {
			t.Errorf("pass rates %s: exit %d, want %d\n%s%s", tc.name, code, tc.code, out, errOut)
		}
	}
}

// An extract tool given as an object without "parameters", or with
// "parameters": null, is a tool named alone: its XML values stay strings,
// and a --tools-file schema of that name types them as for a bare name.
func TestExtractToolObjectWithoutSchema(t *testing.T) {
	toolsFile := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(toolsFile, []byte(`[{"name": "add", "parameters": `+addSchema+`}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	text, _ := json.Marshal(addXML)
	untyped := `{"calls":[{"name":"add","arguments":{"a":"3","b":"2.5"}}],"content":"","envelope":"qwen3_coder_xml"}` + "\n"
	typed := `{"calls":[{"name":"add","arguments":{"a":3,"b":2.5}}],"content":"","envelope":"qwen3_coder_xml"}` + "\n"
	for _, tool := range []string{`{"name": "add"}`, `{"name": "add", "parameters": null}`} {
		stdin := `{"text": ` + string(text) + `, "tools": [` + tool + `]}` + "\n"
		if code, out, errOut := runExtractCmd(t, stdin, "--jsonl"); code != exitOK || out != untyped {
			t.Errorf("tool %s: exit %d, stdout %q, stderr %q; want %q", tool, code, out, errOut, untyped)
		}
		if code, out, errOut := runExtractCmd(t, stdin, "--jsonl", "--tools-file", toolsFile); code != exitOK || out != typed {
			t.Errorf("tool %s with a --tools-file schema: exit %d, stdout %q, stderr %q; want %q", tool, code, out, errOut, typed)
		}
	}
}

// replay --repeat N runs a deterministic scenario N times in all: the
// verified run and N-1 reruns, perturbed by 1 to N-1.
func TestReplayRepeatRunsNTimes(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	if code, out, errOut := runCmd(t, "replay", "--update", dir); code != exitOK {
		t.Fatalf("--update: exit %d\n%s%s", code, out, errOut)
	}
	reruns := &rerunLog{}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"replay", "--repeat", "3", dir}, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, rerun: reruns.rerun})
	if code != exitOK {
		t.Errorf("exit %d, want 0\n%s%s", code, out.String(), errb.String())
	}
	if got, want := reruns.perturbs(), []uint64{1, 2}; !slices.Equal(got, want) {
		t.Errorf("--repeat 3: reruns with perturb %v, want %v", got, want)
	}
}

// record --new with only a prompt writes no setup block (no tools, no
// workspace), and the expect block of a run that changed no file has no
// files key: the scenario holds only what the run had.
func TestRecordNewWithOnlyAPrompt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scenarios", "chat", "hello.yaml")
	code, out, errOut := runRecordCmd(t, context.Background(), scripted(textResponse("Hello.")), "--new", path, "--model", "fake/m", "--prompt", "Say hello.")
	if code != exitOK {
		t.Fatalf("--new: exit %d\n%s\n%s", code, out, errOut)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if strings.Contains(s, "setup:") || strings.Contains(s, "files:") {
		t.Errorf("the new scenario has a setup or files key for a run without tools, workspace or file changes:\n%s", s)
	}
	if want := "expect:\n  termination: final_text\n  iterations: 1\n  tool_calls: []\n  final:\n    equals: Hello.\n"; !strings.HasSuffix(s, want) {
		t.Errorf("the new scenario does not end with\n%s\nin\n%s", want, s)
	}
}

// record's --json document of an interrupted run counts as not started the
// scenario it stopped in and every one it did not get to, as its text does,
// and gives each scenario's wall time in milliseconds (no more than the
// whole command took).
func TestRecordJSONOfAnInterruptedRun(t *testing.T) {
	other := strings.Replace(unrecorded, "Append 'world'", "Append 'there'", 1)
	dir := newScenarios(t, map[string]string{"a/first.yaml": unrecorded, "b/second.yaml": other, "c/third.yaml": other})
	jsonPath := filepath.Join(t.TempDir(), "record.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The second scenario's first call: the user presses Ctrl-C.
	f := interruptedAfter(cancel, callResponse("call_1", "write_file", `{"path": "notes.txt", "content": "hello\nworld\n"}`), textResponse("Done."))
	start := time.Now()
	code, out, errOut := runRecordCmd(t, ctx, f, "--model", "fake/m", "--json", jsonPath, dir)
	took := float64(time.Since(start).Microseconds()) / 1000
	if code != exitFailed || !strings.Contains(out, "1 recorded, 0 skipped, 0 failed; interrupted, 2 not started\n") {
		t.Fatalf("exit %d, want 1 and 2 not started\n%s%s", code, out, errOut)
	}
	d, data := readRecordJSON(t, jsonPath)
	if !d.Interrupted || d.Recorded != 1 || d.Failed != 0 || d.NotStarted != 2 {
		t.Errorf("interrupted %v, recorded %d, failed %d, not started %d; want true, 1, 0, 2\n%s", d.Interrupted, d.Recorded, d.Failed, d.NotStarted, data)
	}
	for _, sc := range d.Scenarios {
		if sc.WallMS < 0 || sc.WallMS > took {
			t.Errorf("%s: wall_ms %g, want from 0 to the %g ms the command took", sc.Name, sc.WallMS, took)
		}
	}
}

// replay prints each scenario's time rounded to 10 µs, so that the line
// does not carry the clock's noise in nanoseconds.
func TestReplayTimesRoundedTo10Microseconds(t *testing.T) {
	for d, want := range map[time.Duration]string{
		1234567 * time.Nanosecond: "1.23ms",
		1235000 * time.Nanosecond: "1.24ms",
		4 * time.Microsecond:      "0s",
		2 * time.Second:           "2s",
	} {
		if got := formatElapsed(d); got != want {
			t.Errorf("formatElapsed(%v) = %q, want %q", d, got, want)
		}
	}
}

// A subcommand's usage shows its description after the usage line, set off
// by a blank line, and no blank paragraph when it has none.
func TestUsageShowsTheDescription(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	for _, tc := range []struct{ description, want string }{
		{"Does y.", "usage: evalrun x\n\nDoes y.\n" + exitCodes + "\n"},
		{"", "usage: evalrun x\n" + exitCodes + "\n"},
	} {
		var b strings.Builder
		printUsage(&b, fs, "evalrun x", tc.description)
		if b.String() != tc.want {
			t.Errorf("description %q: usage\n%q\nwant\n%q", tc.description, b.String(), tc.want)
		}
	}
}

// Flags may come before and after the paths in one command line: a flag
// after a path is still a flag when another flag came first, and after --
// every word is a path, a flag-looking one included.
func TestFlagsBeforeAndAfterPaths(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario, "files/read.yaml": otherScenario})
	code, out, errOut := runCmd(t, "replay", "--update", dir, "--run", "^math/")
	if code != exitOK || !strings.Contains(out, "math/add") || strings.Contains(out, "files/read") || !strings.Contains(out, "1 passed, 0 failed") {
		t.Errorf("replay --update DIR --run ^math/: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut = runCmd(t, "lint", "--", dir, "--strict-requests")
	if code != exitUsage || !strings.Contains(errOut, "--strict-requests: no such file or directory") {
		t.Errorf("lint -- DIR --strict-requests: exit %d, want 2 naming the path --strict-requests\n%s", code, errOut)
	}
}

// merge writes whichever outputs are asked for: --junit alone is enough,
// and without any output it is a usage error.
func TestMergeWithOnlyJUnit(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	if code, out, errOut := runCmd(t, "replay", "--update", dir); code != exitOK {
		t.Fatalf("--update: exit %d\n%s%s", code, out, errOut)
	}
	tmp := t.TempDir()
	result, junit := filepath.Join(tmp, "r.json"), filepath.Join(tmp, "all.xml")
	replayToFile(t, result, dir)
	if code, out, errOut := runCmd(t, "merge", result, "--junit", junit); code != exitOK {
		t.Errorf("merge --junit only: exit %d, want 0\n%s%s", code, out, errOut)
	}
	if data, err := os.ReadFile(junit); err != nil || !strings.Contains(string(data), "<testsuite") {
		t.Errorf("merge --junit wrote no JUnit file: %v\n%s", err, data)
	}
	if code, _, _ := runCmd(t, "merge", result); code != exitUsage {
		t.Errorf("merge without an output: exit %d, want 2", code)
	}
}

// rebase counts a scenario file that does not load as failed in its summary
// line, beside the scenarios it tried (here one without a golden, failed
// too), and exits 2.
func TestRebaseCountsAFileThatDoesNotLoad(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario, "math/broken.yaml": "format: tapeloop/v1\nsetup: [\n"})
	code, out, errOut := runCmd(t, "rebase", dir)
	if code != exitUsage || !strings.Contains(out, "ERROR     ") || !strings.Contains(out, ", 2 failed\n") || strings.Contains(errOut, "no scenario matches") {
		t.Errorf("rebase of a folder with a broken file: exit %d, want 2, the file named and counted as failed\n%s%s", code, out, errOut)
	}
}

// replay takes --parallel 1 and --repeat 1 (the smallest allowed); a
// replay shard with no scenario says so on stderr, and only such a shard.
func TestReplayOneAtATimeAndEmptyShards(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	if code, out, errOut := runCmd(t, "replay", "--update", "--parallel", "1", "--repeat", "1", dir); code != exitOK {
		t.Fatalf("--parallel 1 --repeat 1: exit %d\n%s%s", code, out, errOut)
	}
	empty := 0
	for _, shard := range []string{"1/2", "2/2"} {
		code, out, errOut := runCmd(t, "replay", "--shard", shard, dir)
		if code != exitOK {
			t.Fatalf("--shard %s: exit %d\n%s%s", shard, code, out, errOut)
		}
		says := strings.Contains(errOut, "shard "+shard+" holds no selected scenario")
		if ran := strings.Contains(out, "math/add"); says == ran {
			t.Errorf("--shard %s: ran math/add %v, said it holds none %v; want exactly one\nstdout:\n%s\nstderr:\n%s", shard, ran, says, out, errOut)
		}
		if says {
			empty++
		}
	}
	if empty != 1 {
		t.Errorf("%d of the 2 shards of one scenario were empty; want 1", empty)
	}
}

// replay's summary line counts each scenario once: passed, failed, and
// among the failed those that could not be loaded or run.
func TestReplaySummaryCounts(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	if code, out, errOut := runCmd(t, "replay", "--update", dir); code != exitOK {
		t.Fatalf("--update: exit %d\n%s%s", code, out, errOut)
	}
	for name, text := range map[string]string{
		"files/read.yaml": otherScenario, // no golden: fails
		"z-bad.yaml":      strings.Replace(okScenario, "expect:", "expcet:", 1),
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, out, _ := runCmd(t, "replay", dir)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if got, want := lines[len(lines)-1], "1 passed, 2 failed (1 could not be loaded or run)"; got != want {
		t.Errorf("summary %q, want %q\nstdout:\n%s", got, want, out)
	}
}

// record --new checks the scenario it is about to record against the
// tools there are before any model call: a tool no fixture or factory
// provides is a usage error naming it, and nothing is written.
func TestRecordNewRefusesAnUnknownTool(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scenarios", "new.yaml")
	code, out, errOut := runRecordCmd(t, context.Background(), scripted(textResponse("Hello.")), "--new", path, "--model", "fake/m", "--prompt", "Hi.", "--tools", "no_such_tool")
	if code != exitUsage || !strings.Contains(errOut, "no_such_tool") {
		t.Errorf("exit %d, want 2 naming no_such_tool\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the new scenario was written: %v", err)
	}
}

// record --new writes a failed recording only with --keep-failed.
func TestRecordNewKeepsAFailedRecordingOnlyWhenAsked(t *testing.T) {
	failing := func() *fakeLive {
		return &fakeLive{answer: func(_ context.Context, n int, _ *llm.Request) (*llm.Response, error) {
			if n == 1 {
				return callResponse("call_1", "read_file", `{"path":"notes.txt"}`), nil
			}
			return nil, errors.New("503 overloaded")
		}}
	}
	dir := t.TempDir()
	for _, keep := range []bool{false, true} {
		path := filepath.Join(dir, fmt.Sprintf("keep-%v.yaml", keep))
		args := []string{"--new", path, "--model", "fake/m", "--prompt", "Read notes.txt.", "--tools", "read_file", "--no-golden"}
		if keep {
			args = append(args, "--keep-failed")
		}
		code, out, errOut := runRecordCmd(t, context.Background(), failing(), args...)
		data, err := os.ReadFile(path)
		if code != exitFailed || (err == nil) != keep || keep && !strings.Contains(string(data), "  - error: 503 overloaded\n") {
			t.Errorf("--keep-failed %v: exit %d, file %v (%v):\n%s\nstdout:\n%s\nstderr:\n%s", keep, code, err == nil, err, data, out, errOut)
		}
	}
}

// record --new --capture stores what the captured tool answered as a
// recorded stand-in in the new scenario's setup.tools.
func TestRecordNewCaptures(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "scenarios", "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "scenarios", "read.yaml")
	f := scripted(callResponse("call_1", "read_file", `{"path": "notes.txt"}`), textResponse("It says hello."))
	code, out, errOut := runRecordCmd(t, context.Background(), f, "--new", path, "--model", "fake/m", "--prompt", "What does notes.txt say?",
		"--tools", "read_file", "--workspace", ws, "--capture", "read_file", "--no-golden")
	data, _ := os.ReadFile(path)
	if code != exitOK || !strings.Contains(string(data), "      fixture: recorded\n") || !strings.Contains(string(data), "content: |\n              hello\n") {
		t.Errorf("exit %d; want the read captured in\n%s\nstdout:\n%s\nstderr:\n%s", code, data, out, errOut)
	}
}

// Extending a tape that already ends the run records nothing live and
// leaves the tape as written, its comments too.
func TestRecordExtendOfACompleteTape(t *testing.T) {
	complete := strings.Replace(unrecorded, "tape: []\n", writeRecorded+"  - response: {content: Done.}\n", 1)
	dir := newScenarios(t, map[string]string{"files/append.yaml": complete})
	path := filepath.Join(dir, "files", "append.yaml")
	f := scripted()
	code, out, errOut := runRecordCmd(t, context.Background(), f, "--model", "fake/m", "--mode", "extend", path)
	data, _ := os.ReadFile(path)
	if code != exitOK || len(f.requests) != 0 || !strings.Contains(string(data), "tape:\n  # the write, recorded last week\n  - response:\n") ||
		!strings.Contains(string(data), "  - response: {content: Done.}\n") {
		t.Errorf("exit %d, %d live calls; want 0 and the tape as written in\n%s\nstdout:\n%s\nstderr:\n%s", code, len(f.requests), data, out, errOut)
	}
}

// record --json counts a failed recording as failed.
func TestRecordJSONCountsAFailure(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": unrecorded})
	failing := &fakeLive{answer: func(context.Context, int, *llm.Request) (*llm.Response, error) {
		return nil, errors.New("503 overloaded")
	}}
	out := filepath.Join(t.TempDir(), "record.json")
	code, text, errOut := runRecordCmd(t, context.Background(), failing, "--model", "fake/m", "--json", out, dir)
	d, data := readRecordJSON(t, out)
	if code != exitFailed || d.Failed != 1 || d.Recorded != 0 || d.Skipped != 0 {
		t.Errorf("exit %d, document:\n%s\nwant 1 failed\nstdout:\n%s\nstderr:\n%s", code, data, text, errOut)
	}
}

// Extending a conversation appends to its tape: the user turns replayed
// from it are the tape's own, so what was written stays as written.
func TestRecordExtendOfAConversation(t *testing.T) {
	script := `format: tapeloop/v1
input:
  - {role: system, content: "Be brief."}
tape:
  # recorded last week
  - user: "Hi."
  - response: {content: "Hello."}
  - user: "And goodbye."
`
	dir := newScenarios(t, map[string]string{"talk.yaml": script})
	path := filepath.Join(dir, "talk.yaml")
	f := scripted(textResponse("Bye."))
	code, out, errOut := runRecordCmd(t, context.Background(), f, "--model", "fake/m", "--mode", "extend", path)
	data, _ := os.ReadFile(path)
	if code != exitOK || len(f.requests) != 1 || !strings.Contains(string(data), "tape:\n  # recorded last week\n  - user: \"Hi.\"\n  - response: {content: \"Hello.\"}\n  - user: \"And goodbye.\"\n") ||
		!strings.Contains(string(data), "content: Bye.") {
		t.Errorf("exit %d, %d live calls; want 1 and the tape as written, then Bye., in\n%s\nstdout:\n%s\nstderr:\n%s", code, len(f.requests), data, out, errOut)
	}
}

// A failed recording of a scenario without a tape: key (one written for
// live runs) names the file's first line.
func TestRecordFailureWithoutATapeKey(t *testing.T) {
	live := strings.Replace(unrecorded, "tape: []\n", "", 1)
	if live == unrecorded {
		t.Fatal("no tape key to remove")
	}
	dir := newScenarios(t, map[string]string{"files/append.yaml": live})
	path := filepath.Join(dir, "files", "append.yaml")
	failing := &fakeLive{answer: func(context.Context, int, *llm.Request) (*llm.Response, error) {
		return nil, errors.New("503 overloaded")
	}}
	code, out, errOut := runRecordCmd(t, context.Background(), failing, "--model", "fake/m", path)
	if code != exitFailed || !strings.Contains(out, path+":1: the recording failed: ") {
		t.Errorf("exit %d; want 1 and the failure at %s:1\nstdout:\n%s\nstderr:\n%s", code, path, out, errOut)
	}
}

// An interrupted record run that also had an error exits 2, not 1, and
// counts the error among the failed.
func TestRecordInterruptedAfterAnError(t *testing.T) {
	userModel := `format: tapeloop/v1
setup:
  user: {model: fake/user, instructions: "Ask about the weather.", max_turns: 2}
input:
  - {role: user, content: "Hi."}
tape:
  - response: {content: "Hello."}
`
	dir := newScenarios(t, map[string]string{"a/user.yaml": userModel, "b/append.yaml": unrecorded})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code, out, errOut := runRecordCmd(t, ctx, interruptedAfter(cancel), "--model", "fake/m", "--mode", "extend", dir)
	if code != exitUsage || !strings.Contains(out, "\n0 recorded, 0 skipped, 1 failed; interrupted, 1 not started\n") {
		t.Errorf("exit %d, want 2 and the error counted as failed\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// Re-recording (--mode all) replaces a scenario's offered block with what
// the model is offered now.
func TestRecordAllRenewsTheOfferedBlock(t *testing.T) {
	stale := strings.Replace(unrecorded, "tape: []\n", `offered:
  system: []
  tools:
    - name: write_file
      description: An old description.
tape:
  - response: {content: "Done before."}
`, 1)
	dir := newScenarios(t, map[string]string{"files/append.yaml": stale})
	path := filepath.Join(dir, "files", "append.yaml")
	code, out, errOut := runRecordCmd(t, context.Background(), appendScript(), "--model", "fake/m", "--mode", "all", "--no-golden", path)
	data, _ := os.ReadFile(path)
	if code != exitOK || strings.Contains(string(data), "An old description.") || !strings.Contains(string(data), "    - name: read_file\n") {
		t.Errorf("exit %d; want the offered block renewed (read_file and write_file as offered now) in\n%s\nstdout:\n%s\nstderr:\n%s", code, data, out, errOut)
	}
}

// rebase --json counts unchanged, refused and failed scenarios.
func TestRebaseJSONCountsEachStatus(t *testing.T) {
	read := func(path string) rebaseDocument {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var d rebaseDocument
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario, "math/broken.yaml": "format: tapeloop/v1\nsetup: [\n"})
	out := filepath.Join(t.TempDir(), "failed.json")
	runCmd(t, "rebase", "--json", out, dir)
	if d := read(out); d.Failed != 2 || d.Refused != 0 || d.Rebased != 0 {
		t.Errorf("a scenario without a golden and a file that does not load: %d failed, %d refused, %d rebased; want 2, 0, 0", d.Failed, d.Refused, d.Rebased)
	}
	path := pinnedNoteTaker(t)
	out = filepath.Join(t.TempDir(), "unchanged.json")
	runCmd(t, "rebase", "--json", out, path)
	if d := read(out); d.Unchanged != 1 || d.Rebased != 0 || d.Failed != 0 {
		t.Errorf("a scenario the agent still matches: %d unchanged, %d rebased, %d failed; want 1, 0, 0", d.Unchanged, d.Rebased, d.Failed)
	}
	edit(t, path, "required: [word]", "required: [word, lang]")
	out = filepath.Join(t.TempDir(), "refused.json")
	if code, text, _ := runCmd(t, "rebase", "--json", out, path); !strings.Contains(text, "REFUSED") {
		t.Fatalf("exit %d, want the scenario refused:\n%s", code, text)
	}
	if d := read(out); d.Refused != 1 || d.Failed != 0 {
		t.Errorf("a response the schema now refuses: %d refused, %d failed; want 1, 0", d.Refused, d.Failed)
	}
}

// record --capture also replaces a tool written in the long form (a
// mapping with its name), not only a bare name.
func TestRecordCapturesALongFormTool(t *testing.T) {
	scenario := `format: tapeloop/v1
setup:
  workspace:
    files: {notes.txt: "hello\n"}
  tools:
    - {name: read_file}
input:
  - {role: user, content: "What does notes.txt say?"}
tape: []
`
	dir := newScenarios(t, map[string]string{"read.yaml": scenario})
	path := filepath.Join(dir, "read.yaml")
	f := scripted(callResponse("call_1", "read_file", `{"path": "notes.txt"}`), textResponse("It says hello."))
	code, out, errOut := runRecordCmd(t, context.Background(), f, "--model", "fake/m", "--capture", "read_file", "--no-golden", path)
	data, _ := os.ReadFile(path)
	if code != exitOK || !strings.Contains(string(data), "  tools:\n    # Captured by evalrun record --capture; it was:\n    # {name: read_file}\n    - name: read_file\n      fixture: recorded\n") {
		t.Errorf("exit %d; want the long-form read_file replaced by its stand-in in\n%s\nstdout:\n%s\nstderr:\n%s", code, data, out, errOut)
	}
}
