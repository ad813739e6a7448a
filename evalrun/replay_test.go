package evalrun

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

const okScenario = `format: tapeloop/v1
tags: [math]
setup:
  tools: [calculator]
input:
  - {role: user, content: "What is 2+3?"}
tape:
  - response:
      tool_calls:
        - {id: call_1, name: calculator, arguments: '{"operation": "add", "a": 2, "b": 3,}'}
  - response: {content: "5"}
expect:
  termination: final_text
  repairs: {call_1: [trailing_comma]}
`

const otherScenario = `format: tapeloop/v1
tags: [files]
setup:
  workspace: {files: {a.txt: "x\n"}}
  tools: [read_file]
input:
  - {role: user, content: "Read a.txt"}
tape:
  - response:
      tool_calls:
        - {id: call_1, name: read_file, arguments: {path: a.txt}}
  - response: {content: "It says x."}
`

// newScenarios writes a scenarios folder with the given files under a temp dir
// and returns the folder.
func newScenarios(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "scenarios")
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
	return code, out.String(), errb.String()
}

func TestReplayBlessThenPass(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario, "files/read.yaml": otherScenario})
	code, out, errOut := runCmd(t, "replay", dir)
	if code != exitFailed || !strings.Contains(out, "missing golden file") {
		t.Fatalf("without goldens: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "math", "add.golden.yaml")); err == nil {
		t.Fatal("a golden was created without --update")
	}
	if code, out, _ = runCmd(t, "replay", "--update", dir); code != exitOK || !strings.Contains(out, "(golden updated)") {
		t.Fatalf("--update: exit %d:\n%s", code, out)
	}
	code, out, _ = runCmd(t, "replay", dir)
	if code != exitOK {
		t.Fatalf("after --update: exit %d:\n%s", code, out)
	}
	for _, want := range []string{"PASS   files/read  ", "PASS   math/add  ", "2 passed, 0 failed\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestReplayBrokenGoldenShowsTheDifference(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	if code, out, _ := runCmd(t, "replay", "--update", dir); code != exitOK {
		t.Fatalf("--update: %s", out)
	}
	golden := filepath.Join(dir, "math", "add.golden.yaml")
	data, _ := os.ReadFile(golden)
	broken := strings.Replace(string(data), "final: '5'", "final: '6'", 1)
	if broken == string(data) {
		t.Fatalf("the golden has no final line to break:\n%s", data)
	}
	os.WriteFile(golden, []byte(broken), 0o644)
	code, out, _ := runCmd(t, "replay", dir)
	if code != exitFailed {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	for _, want := range []string{"FAIL   math/add", "(- golden, + outcome; first difference)", "-final: '6'", "+final: '5'", "0 passed, 1 failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestReplayUpdateRewritesOnlySelectedGoldens(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario, "files/read.yaml": otherScenario})
	runCmd(t, "replay", "--update", dir)
	stale := filepath.Join(dir, "files", "read.golden.yaml")
	data, _ := os.ReadFile(stale)
	os.WriteFile(stale, append(data, "# stale\n"...), 0o644)
	for _, args := range [][]string{{"--run", "^math/"}, {"--tag", "math"}} {
		code, out, _ := runCmd(t, append(append([]string{"replay", "--update"}, args...), dir)...)
		if code != exitOK || strings.Contains(out, "files/read") {
			t.Errorf("%v: exit %d, output:\n%s", args, code, out)
		}
		if now, _ := os.ReadFile(stale); !strings.HasSuffix(string(now), "# stale\n") {
			t.Errorf("%v: the golden of an unselected scenario was rewritten", args)
		}
	}
	if code, _, errOut := runCmd(t, "replay", "--run", "nothing-matches", dir); code != exitUsage || !strings.Contains(errOut, "no scenario matches") {
		t.Errorf("no match: exit %d, stderr %q", code, errOut)
	}
}

func TestReplayFailsOnOrphanGoldens(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario, "math/gone.golden.yaml": "name: gone\n"})
	orphan := filepath.Join(dir, "math", "gone.golden.yaml")
	want := "golden file " + orphan + " has no scenario: delete it (evalrun replay --prune) or restore its scenario"
	// Even --update fails: it writes goldens but never deletes one.
	if code, out, _ := runCmd(t, "replay", "--update", dir); code != exitFailed || !strings.Contains(out, "FAIL   "+orphan) || !strings.Contains(out, want) {
		t.Errorf("--update: exit %d, want 1:\n%s", code, out)
	}
	junit := filepath.Join(t.TempDir(), "report.xml")
	code, out, _ := runCmd(t, "replay", "--json", "--junit", junit, dir)
	if code != exitFailed {
		t.Errorf("exit %d, want 1", code)
	}
	rep, err := report.DecodeReplay("stdout", []byte(out))
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if rep.Summary.Passed != 1 || rep.Summary.Failed != 1 || len(rep.Scenarios) != 2 || rep.Scenarios[1].Name != orphan ||
		rep.Scenarios[1].Status != "fail" || len(rep.Scenarios[1].Failures) != 1 || rep.Scenarios[1].Failures[0] != want {
		t.Errorf("--json: %+v", rep)
	}
	xmlData, _ := os.ReadFile(junit)
	if !strings.Contains(string(xmlData), `<testcase name="`+orphan+`"`) || !strings.Contains(string(xmlData), `failures="1"`) {
		t.Errorf("--junit lacks the orphan:\n%s", xmlData)
	}
	code, errOut := 0, ""
	if code, _, errOut = runCmd(t, "lint", dir); code != exitUsage || !strings.Contains(errOut, want) {
		t.Errorf("lint: exit %d, stderr:\n%s", code, errOut)
	}

	code, out, _ = runCmd(t, "replay", dir, "--prune")
	if code != exitOK || !strings.Contains(out, "pruned "+orphan+" (no scenario refers to it)") {
		t.Errorf("--prune: exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("--prune left the orphan: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "math", "add.golden.yaml")); err != nil {
		t.Errorf("--prune deleted a live golden: %v", err)
	}
	if code, out, _ := runCmd(t, "replay", dir); code != exitOK {
		t.Errorf("after --prune: exit %d:\n%s", code, out)
	}
}

func TestNonScenarioYAML(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yml": okScenario, "settings.yaml": "colour: blue\n"})
	if code, out, _ := runCmd(t, "replay", "--update", dir); code != exitOK || !strings.Contains(out, "PASS   math/add") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "math", "add.golden.yml")); err != nil {
		t.Errorf("a .yml scenario's golden: %v", err)
	}
	settings := filepath.Join(dir, "settings.yaml")
	note := "skipping " + settings + ": not a tapeloop scenario: it has no `format: tapeloop/v1` line"
	for _, cmd := range []string{"replay", "lint"} {
		code, out, errOut := runCmd(t, cmd, dir)
		if code != exitOK || !strings.Contains(errOut, "evalrun "+cmd+": "+note) {
			t.Errorf("%s: exit %d\n%s%s", cmd, code, out, errOut)
		}
	}
	// Named on its own, it is an input error.
	if code, out, _ := runCmd(t, "replay", settings); code != exitUsage || !strings.Contains(out, "not a tapeloop scenario") {
		t.Errorf("named: exit %d\n%s", code, out)
	}
}

func TestReplayInputErrorsExitTwo(t *testing.T) {
	dir := newScenarios(t, map[string]string{"bad.yaml": strings.Replace(okScenario, "expect:", "expcet:", 1)})
	code, out, _ := runCmd(t, "replay", dir)
	if code != exitUsage || !strings.Contains(out, "ERROR") || !strings.Contains(out, `bad.yaml:12: unknown key "expcet"`) {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
	// A scenario that fails after one that could not run: still exit 2.
	both := newScenarios(t, map[string]string{
		"a-bad.yaml":  strings.Replace(okScenario, "expect:", "expcet:", 1),
		"b-fail.yaml": strings.Replace(okScenario, "termination: final_text", "termination: max_iterations", 1),
	})
	code, out, _ = runCmd(t, "replay", both)
	if code != exitUsage || !strings.Contains(out, "ERROR") || !strings.Contains(out, "expect.termination: expected max_iterations, found final_text") {
		t.Errorf("an input error, then a failure: exit %d, output:\n%s", code, out)
	}
	for _, flag := range []string{"--parallel", "--repeat"} {
		if code, _, errOut := runCmd(t, "replay", flag, "0", dir); code != exitUsage || !strings.Contains(errOut, "--parallel and --repeat must be at least 1") {
			t.Errorf("%s 0: exit %d, stderr %q", flag, code, errOut)
		}
	}
	if code, _, _ := runCmd(t, "replay", "--no-such-flag"); code != exitUsage {
		t.Errorf("unknown flag: exit %d", code)
	}
	if code, _, _ := runCmd(t, "replay", filepath.Join(dir, "missing")); code != exitUsage {
		t.Errorf("missing path: exit %d", code)
	}
}

func TestLint(t *testing.T) {
	dir := newScenarios(t, map[string]string{
		"ok.yaml":  okScenario,
		"bad.yaml": strings.Replace(okScenario, "tools: [calculator]", "tools:\n    - name: weather\n      fixture: flaky\n      with: {failures: two, kind: transient, result: x}", 1),
	})
	code, out, errOut := runCmd(t, "lint", dir)
	if code != exitUsage {
		t.Errorf("exit %d, want 2", code)
	}
	if want := filepath.Join(dir, "bad.yaml") + ":7: setup.tools[weather].with.failures: want an integer, got \"two\""; !strings.Contains(errOut, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errOut)
	}
	if !strings.Contains(out, "ok    ok\n") || !strings.Contains(out, "2 scenario files, 1 with errors") {
		t.Errorf("stdout:\n%s", out)
	}
}

func TestReplayJSONAndJUnit(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario, "files/read.yaml": otherScenario})
	runCmd(t, "replay", "--update", dir)
	os.Remove(filepath.Join(dir, "files", "read.golden.yaml"))
	junit := filepath.Join(t.TempDir(), "report.xml")
	code, out, _ := runCmd(t, "replay", "--json", "--junit", junit, dir)
	if code != exitFailed {
		t.Errorf("exit %d, want 1", code)
	}
	rep, err := report.DecodeReplay("stdout", []byte(out))
	if err != nil {
		t.Fatalf("--json output does not parse: %v\n%s", err, out)
	}
	if rep.Summary.Passed != 1 || rep.Summary.Failed != 1 || len(rep.Scenarios) != 2 ||
		rep.Scenarios[0].Name != "files/read" || rep.Scenarios[0].Status != "fail" ||
		rep.Scenarios[1].Status != "pass" || rep.Scenarios[1].Termination != "final_text" {
		t.Errorf("report %+v", rep)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &suites); err != nil {
		t.Fatalf("JUnit does not parse: %v\n%s", err, data)
	}
	s := suites.Suites[0]
	if s.Tests != 2 || s.Failures != 1 || s.Cases[0].Failure == nil || !strings.Contains(s.Cases[0].Failure.Message, "missing golden file") || s.Cases[1].Failure != nil {
		t.Errorf("JUnit:\n%s", data)
	}
}

func TestReplayRepeatIsDeterministic(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario, "files/read.yaml": otherScenario})
	runCmd(t, "replay", "--update", dir)
	if code, out, _ := runCmd(t, "replay", "--repeat", "10", "--parallel", "2", dir); code != exitOK {
		t.Errorf("--repeat 10: exit %d:\n%s", code, out)
	}
}

// TestReplayReportsStaleTemps checks that the temporary file a killed
// `replay --update` left beside a golden is reported by the next replay and
// removed by the next replay --update.
func TestReplayReportsStaleTemps(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	if code, out, _ := runCmd(t, "replay", "--update", dir); code != exitOK {
		t.Fatalf("--update: exit %d\n%s", code, out)
	}
	tmp := filepath.Join(dir, "math", ".add.golden.yaml.tmp4242")
	if err := os.WriteFile(tmp, []byte("name: ad"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "evalrun replay: warning: " + tmp + " is a temporary file left by an interrupted --update; delete it (replay --update removes it)"
	if code, _, errOut := runCmd(t, "replay", dir); code != exitOK || !strings.Contains(errOut, want) {
		t.Errorf("replay: exit %d, stderr:\n%s\nwant it to hold:\n%s", code, errOut, want)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("a plain replay removed the temporary file: %v", err)
	}
	want = "evalrun replay: removed " + tmp + ", a temporary file left by an interrupted --update"
	if code, _, errOut := runCmd(t, "replay", "--update", dir); code != exitOK || !strings.Contains(errOut, want) {
		t.Errorf("replay --update: exit %d, stderr:\n%s\nwant it to hold:\n%s", code, errOut, want)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("replay --update left the temporary file (%v)", err)
	}
}

// TestReplayEscapesControlCharacters checks that what replay prints of a
// scenario (its name, its failures) reaches the terminal with control
// characters escaped: a name could otherwise recolour or rewrite the screen.
func TestReplayEscapesControlCharacters(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": strings.Replace(okScenario, "tags: [math]", "name: \"evil\\e[2J\\rred\\u0007\"\ntags: [math]", 1)})
	code, out, _ := runCmd(t, "replay", dir)
	if strings.ContainsAny(out, "\x1b\r\a") {
		t.Errorf("raw control characters reached stdout:\n%q", out)
	}
	if want := `evil\x1b[2J\rred\a`; !strings.Contains(out, want) {
		t.Errorf("exit %d; stdout does not show the name as %s:\n%s", code, want, out)
	}
}

// rerunLog is a replay env's rerun seam that runs the scenario natively,
// lets change (nil: none) alter each outcome by its Perturb, and keeps the
// Perturb values it was called with.
type rerunLog struct {
	change func(o *harness.Outcome, perturb uint64)
	mu     sync.Mutex
	seen   []uint64
}

func (l *rerunLog) rerun(ctx context.Context, s *scenario.Scenario, opts *harness.RunOptions) (*harness.Outcome, error) {
	l.mu.Lock()
	l.seen = append(l.seen, opts.Perturb)
	l.mu.Unlock()
	o, err := harness.Run(ctx, s, opts)
	if err == nil && l.change != nil {
		l.change(o, opts.Perturb)
	}
	return o, err
}

// perturbs returns the Perturb values of the reruns so far, in call order.
func (l *rerunLog) perturbs() []uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

// TestReplayRepeatComparesRuns feeds --repeat a scenario whose fourth run
// ends differently (through the env's rerun seam): the replay fails and says
// which repeat differed, and how.
func TestReplayRepeatComparesRuns(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	if code, out, errOut := runCmd(t, "replay", "--update", dir); code != exitOK {
		t.Fatalf("--update: exit %d\n%s%s", code, out, errOut)
	}
	reruns := &rerunLog{change: func(o *harness.Outcome, perturb uint64) {
		if perturb == 3 {
			o.Final = "6"
		}
	}}
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"replay", "--repeat", "5", dir}, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, rerun: reruns.rerun})
	if code != exitFailed {
		t.Errorf("exit %d, want %d\n%s%s", code, exitFailed, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "nondeterministic: repeat 4 (perturbed scheduling) differs from the first run") ||
		!strings.Contains(out.String(), "final: '6'") {
		t.Errorf("the output does not name repeat 4 and show its final text:\n%s", out.String())
	}
	if got, want := reruns.perturbs(), []uint64{1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("reruns with perturb %v, want %v (stop at the first difference)", got, want)
	}
}

// TestReplayRunExcludesAFileThatDoesNotLoad: a scenario file that does not
// load is reported (exit 2) unless --run excludes its path.
func TestReplayRunExcludesAFileThatDoesNotLoad(t *testing.T) {
	dir := newScenarios(t, map[string]string{
		"zebra.yaml":  okScenario,
		"broken.yaml": strings.Replace(okScenario, "expect:", "expcet:", 1),
	})
	runCmd(t, "replay", "--update", "--run", "zebra", dir)
	code, out, errOut := runCmd(t, "replay", "--run", "zebra", dir)
	if code != exitOK || strings.Contains(out+errOut, "broken") {
		t.Errorf("--run zebra: exit %d, want 0 without a word of broken.yaml:\n%s%s", code, out, errOut)
	}
	if code, out, _ := runCmd(t, "replay", dir); code != exitUsage || !strings.Contains(out, "broken.yaml") {
		t.Errorf("without --run: exit %d, want 2 naming broken.yaml:\n%s", code, out)
	}
}

// TestUpdateDoesNotBlessAFailingScenario: --update writes the golden of a
// scenario whose expectations fail but keeps it failing (exit 1) and says
// so; --update --force blesses it (exit 0), listing what it forced.
func TestUpdateDoesNotBlessAFailingScenario(t *testing.T) {
	failing := strings.Replace(okScenario, "termination: final_text", "termination: max_iterations", 1)
	dir := newScenarios(t, map[string]string{"math/add.yaml": failing})
	golden := filepath.Join(dir, "math", "add.golden.yaml")
	code, out, _ := runCmd(t, "replay", "--update", dir)
	if code != exitFailed || !strings.Contains(out, "FAIL   math/add  ") ||
		!strings.Contains(out, "(golden written, but the scenario fails, so it is not blessed: fix what follows, or bless it anyway with --update --force)\n") ||
		!strings.Contains(out, "expect.termination") {
		t.Errorf("--update: exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(golden); err != nil {
		t.Errorf("--update did not write the golden: %v", err)
	}
	if err := os.Remove(golden); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCmd(t, "replay", "--update", "--force", dir)
	if code != exitOK || !strings.Contains(out, "PASS   math/add  ") ||
		!strings.Contains(out, "(golden updated; blessed with --force although expectations failed)\n    forced: ") ||
		!strings.Contains(out, "1 passed, 0 failed") {
		t.Errorf("--update --force: exit %d:\n%s", code, out)
	}
	// Blessed or not, a plain replay still checks the expectations.
	if code, out, _ = runCmd(t, "replay", dir); code != exitFailed || !strings.Contains(out, "expect.termination") {
		t.Errorf("replay after --force: exit %d:\n%s", code, out)
	}
	if code, _, errOut := runCmd(t, "replay", "--force", dir); code != exitUsage || errOut != "evalrun replay: --force goes with --update\n" {
		t.Errorf("--force alone: exit %d, stderr %q", code, errOut)
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

// TestReplayTextSaysWhatTheSandboxDidNotHold: a scenario's lines in the
// text output say what its agent command's sandbox did not isolate and
// what it killed (Outcome.Sandbox), under the scenario, without failing it.
func TestReplayTextSaysWhatTheSandboxDidNotHold(t *testing.T) {
	var out bytes.Buffer
	notes := []string{"the network is not isolated: it could reach any address", "the agent command left 1 process running, killed when the run ended: sh"}
	writeResult(&out, &env{}, &replayResult{Verdict: &harness.Verdict{Name: "cmd", Outcome: &harness.Outcome{Sandbox: notes}}})
	lines := strings.Split(out.String(), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "PASS   cmd") ||
		lines[1] != "    sandbox: "+notes[0] || lines[2] != "    sandbox: "+notes[1] || lines[3] != "" {
		t.Errorf("the text output is\n%s\nwant the scenario passed, then each sandbox note under it", out.String())
	}
}

// TestReplayRemovesItsSpool: replay --json keeps the results for its
// reports in a temporary file, and removes it when done.
func TestReplayRemovesItsSpool(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	if code, out, errOut := runCmd(t, "replay", "--update", dir); code != exitOK {
		t.Fatalf("--update: exit %d\n%s%s", code, out, errOut)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	if code, out, errOut := runCmd(t, "replay", "--json", jsonPath, dir); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "tapeloop-replay-*")); len(left) != 0 {
		t.Errorf("replay left %q in TMPDIR", left)
	}
}

// deepFolder makes under dir a chain of nested folders, through os.Root
// (one folder at a time, so no single path it opens is long), until the
// deepest one's path is at least length bytes long, and returns that path
// and the deepest folder opened as a root (closed when the test ends). A
// path of 4096 bytes or more (PATH_MAX on Linux) cannot be opened whole,
// whoever the user is: the one error a test run as root can still meet.
func deepFolder(t *testing.T, dir string, length int) (string, *os.Root) {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	seg := strings.Repeat("d", 100)
	for len(dir) < length {
		if err := r.Mkdir(seg, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := r.OpenRoot(seg)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		r, dir = next, filepath.Join(dir, seg)
	}
	t.Cleanup(func() { r.Close() })
	return dir, r
}

// TestReplayUpdateSaysWhenAStaleTempStays: a stale temporary file that
// replay --update cannot remove (here its path is longer than the system
// takes) is reported with why, not announced as removed, and the replay's
// exit code is its scenarios' alone.
func TestReplayUpdateSaysWhenAStaleTempStays(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario})
	if code, out, _ := runCmd(t, "replay", "--update", dir); code != exitOK {
		t.Fatalf("--update: exit %d\n%s", code, out)
	}
	// The folder's path stays short enough to read; the file's is not.
	deep, r := deepFolder(t, filepath.Join(dir, "math"), 3900)
	name := "." + strings.Repeat("a", 222) + ".golden.yaml.tmp7"
	f, err := r.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	tmp := filepath.Join(deep, name)
	code, _, errOut := runCmd(t, "replay", "--update", dir)
	if want := "evalrun replay: removing a stale temporary file: remove " + tmp + ": file name too long\n"; code != exitOK || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 0 and stderr holding:\n%s", code, errOut, want)
	}
	if strings.Contains(errOut, "evalrun replay: removed ") {
		t.Errorf("a temporary file that stayed is announced as removed:\n%s", errOut)
	}
	if _, err := r.Stat(name); err != nil {
		t.Errorf("the temporary file is gone (%v): the test did not make its removal fail", err)
	}
}

// TestReplayOverlappingArgumentsRunsEachOnce: a scenario reached through
// overlapping arguments (a folder and its subfolder, the same file twice,
// a folder and a symbolic link to it) is replayed once, where it first
// came, and counted once; a link named as a folder is walked.
func TestReplayOverlappingArgumentsRunsEachOnce(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario, "files/read.yaml": otherScenario})
	if code, out, _ := runCmd(t, "replay", "--update", dir); code != exitOK {
		t.Fatalf("--update: exit %d\n%s", code, out)
	}
	// The link is a scenarios folder too, so names (and goldens) agree.
	alias := filepath.Join(t.TempDir(), "scenarios")
	if err := os.Symlink(dir, alias); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	add := filepath.Join(dir, "math", "add.yaml")
	for _, c := range []struct {
		name string
		args []string
		want string // the PASS lines, in order, then the count
	}{
		{"folder and subfolder", []string{dir, filepath.Join(dir, "math")}, "files/read math/add 2"},
		{"subfolder first", []string{filepath.Join(dir, "math"), dir}, "math/add files/read 2"},
		{"one file twice", []string{add, add, filepath.Join(dir, "math", "..", "math", "add.yaml")}, "math/add 1"},
		{"folder and its link", []string{dir, alias}, "files/read math/add 2"},
		{"the link alone", []string{alias}, "files/read math/add 2"},
	} {
		code, out, errOut := runCmd(t, append([]string{"replay"}, c.args...)...)
		var got []string
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "PASS" {
				got = append(got, f[1])
			}
			if n, ok := strings.CutSuffix(line, " passed, 0 failed"); ok {
				got = append(got, n)
			}
		}
		if code != exitOK || strings.Join(got, " ") != c.want {
			t.Errorf("%s: exit %d, passed %q, want %q\n%s%s", c.name, code, strings.Join(got, " "), c.want, out, errOut)
		}
	}
}
