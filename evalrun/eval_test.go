package evalrun

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/report"
)

// appendScenario asks for a line appended to notes.txt and scores the file
// and the final text.
const appendScenario = `format: tapeloop/v1
tags: [files]
setup:
  workspace:
    files: {notes.txt: "hello\n"}
  tools: [read_file, write_file]
input:
  - {role: user, content: "Append 'world' to notes.txt."}
tape: []
expect:
  termination: final_text
  files: {notes.txt: "hello\nworld\n"}
  final: {contains: "done"}
`

// scripted is an in-process provider for the command's tests: scripted/right
// writes the right file, scripted/wrong the wrong one, scripted/alternate
// alternates right and wrong by the order its trials start.
var scriptedTrials sync.Map // model name -> *int

func init() {
	llm.Register("scripted", llm.ProviderFunc(func(ctx context.Context, model string, opts *llm.OpenOptions) (llm.Model, error) {
		var mu sync.Mutex
		n := 0
		return llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
			mu.Lock()
			if len(req.Messages) == 1 {
				n++
			}
			right := model == "right" || (model == "alternate" && n%2 == 1)
			mu.Unlock()
			if last, _ := req.LastMessage(); last.Role == llm.RoleTool {
				return &llm.Response{Message: llm.AssistantMessage("done"), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 100, OutputTokens: 5}}, nil
			}
			content := "hello\nworld\n"
			if !right {
				content = "world\n"
			}
			args := fmt.Sprintf(`{"path": "notes.txt", "content": %q}`, content)
			return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "write_file", Arguments: args}),
				FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 50, OutputTokens: 20}}, nil
		}), nil
	}))
}

func readReport(t *testing.T, path string) *report.Eval {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := report.ReadEval(f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestEvalTwoModels(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	jsonPath := filepath.Join(t.TempDir(), "out.json")
	code, out, errOut := runCmd(t, "eval", "--model", "scripted/right", "--model", "scripted/wrong", "--trials", "3", "--parallel", "2",
		"--price", "scripted/right=1,2", "--json", jsonPath, dir)
	if code != exitFailed {
		t.Fatalf("exit %d; want 1 (scripted/wrong fails)\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"files/append  3/3 pass        0/3 fail  differs\n",
		"  files/append (scripted/wrong) failed: files[notes.txt] 3/3",
		// Three trials a side on one scenario cannot prove a difference
		// (Fisher p = 2/20): the interval reaches 0.
		"scripted/wrong - scripted/right: pass rate -1.000, 95% CI [-1.000, +0.000] over 1 shared scenarios, 3 and 3 trials (hierarchical bootstrap, 10000 resamples, seed 1): no significant change",
		"3 passed, 3 failed, 0 errors (left out of pass@k)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	r := readReport(t, jsonPath)
	if len(r.Scenarios) != 2 || r.Scenarios[0].Model != "scripted/right" || r.Scenarios[1].Class != report.ClassFail || r.Summary.OK {
		t.Errorf("report: %+v", r)
	}
	if c := r.Models[0].Cost; c == nil || math.Abs(*c-3*(150*1+25*2)/1e6) > 1e-12 {
		t.Errorf("scripted/right cost %v; want %v", c, 3*(150*1+25*2)/1e6)
	}
}

func TestEvalMinPass(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	args := []string{"eval", "--model", "scripted/alternate", "--trials", "4", "--parallel", "1"}
	if code, out, errOut := runCmd(t, append(args, dir)...); code != exitFailed || !strings.Contains(out, "2/4 flaky") {
		t.Errorf("without --min-pass: exit %d; want 1 and 2/4 flaky\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, append(args, "--min-pass", "0.5", dir)...); code != exitOK {
		t.Errorf("--min-pass 0.5: exit %d; want 0\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, append(args, "--min-pass", "0.75", dir)...); code != exitFailed {
		t.Errorf("--min-pass 0.75: exit %d; want 1\n%s%s", code, out, errOut)
	}
}

// TestEvalSaveTrialsThenReplay saves the failing trials of a flaky model and
// replays them with no model: each reproduces the live failure.
func TestEvalSaveTrialsThenReplay(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	saved := filepath.Join(t.TempDir(), "trials")
	jsonPath := filepath.Join(t.TempDir(), "out.json")
	code, out, errOut := runCmd(t, "eval", "--model", "scripted/alternate", "--trials", "4", "--parallel", "1",
		"--save-trials", saved, "--save-trials-failed", "--json", jsonPath, dir)
	if code != exitFailed {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	r := readReport(t, jsonPath)
	var savedFiles []string
	for _, tr := range r.Scenarios[0].TrialsDetail {
		if (tr.Saved != "") != (tr.Status == report.StatusFail) {
			t.Errorf("trial %d (%s) saved as %q; want only failing trials saved", tr.Trial, tr.Status, tr.Saved)
		}
		if tr.Saved != "" {
			savedFiles = append(savedFiles, tr.Saved)
		}
	}
	want := []string{filepath.Join(saved, "files/append/scripted-alternate/trial-2.yaml"), filepath.Join(saved, "files/append/scripted-alternate/trial-4.yaml")}
	if strings.Join(savedFiles, " ") != strings.Join(want, " ") {
		t.Fatalf("saved %v; want %v", savedFiles, want)
	}
	code, out, errOut = runCmd(t, "replay", saved)
	if code != exitFailed {
		t.Fatalf("replaying the saved failures: exit %d; want 1\n%s%s", code, out, errOut)
	}
	for _, f := range want {
		// The line of expect.files: the saved trial holds the scenario's
		// text with the trial's offered block and tape.
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		at := strings.Index(string(data), "\nexpect:\n")
		line := strings.Count(string(data)[:at+1], "\n") + 1 + strings.Count(string(data)[at+1:at+1+strings.Index(string(data)[at+1:], "files:")], "\n")
		msg := fmt.Sprintf("%s:%d: expect.files:", f, line) + ` expected notes.txt to hold "hello\nworld\n", found "world\n"`
		if at < 0 || !strings.Contains(out, msg) {
			t.Errorf("replay output lacks %q:\n%s", msg, out)
		}
	}
	if !strings.Contains(out, "0 passed, 2 failed") {
		t.Errorf("replay summary:\n%s", out)
	}
}

func TestEvalUsageErrors(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	noExpect := newScenarios(t, map[string]string{"a.yaml": "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\n"})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", dir}, "evalrun eval: no --model given (PROVIDER/MODEL, such as openai/gpt-4.1-mini), and " + filepath.Join(dir, "files", "append.yaml") + " names no model of its own (setup.loop.request.model)\n"},
		{[]string{"eval", "--model", "nosuch/m", dir}, `evalrun eval: opening model nosuch/m: unknown provider "nosuch" (registered: `},
		{[]string{"eval", "--model", "scripted/right", noExpect}, "a.yaml: scenario has no expect block (nothing to score a live run with)\n"},
		{[]string{"eval", "--model", "scripted/right", "--min-pass", "2", dir}, `evalrun eval: --min-pass "2": want a rate from 0 to 1` + "\n"},
		{[]string{"eval", "--model", "scripted/right", "--price", "scripted/right=1", dir}, `evalrun eval: --price "scripted/right=1": want MODEL=INPUT,OUTPUT[,CACHED] in US dollars per million tokens` + "\n"},
		{[]string{"eval", "--model", "scripted/right", "--rpm", "x", dir}, `evalrun eval: --rpm "x": want N or PROVIDER=N with N at least 1` + "\n"},
	} {
		code, out, errOut := runCmd(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q\nstdout: %s", tc.args, code, errOut, tc.want, out)
		}
	}
}

// TestCompareRegressionsFirst: a scenario that went from 2/2 to 0/2 dropped,
// but two trials a side cannot show it (Fisher p = 1/3): no significant
// change, exit 0 by default, exit 1 with --fail-on drop.
func TestCompareRegressionsFirst(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario, "files/again.yaml": appendScenario})
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a.json"), filepath.Join(tmp, "b.json")
	if code, out, errOut := runCmd(t, "eval", "--model", "scripted/right", "--trials", "2", "--json", a, dir); code != exitOK {
		t.Fatalf("baseline: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, "eval", "--model", "scripted/wrong", "--trials", "2", "--json", b, "--run", "again", dir); code != exitFailed {
		t.Fatalf("later run: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runCmd(t, "compare", a, b)
	if code != exitOK {
		t.Fatalf("compare: exit %d; want 0\n%s%s", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{
		"change           scenario      scripted/right  scripted/wrong  p",
		"not significant  files/again   2/2 pass        0/2 fail        0.333 (4 trials per run would detect a change of 1.00)",
		"removed          files/append  2/2 pass        -               -",
		"no significant change in any scenario (Fisher's exact test, Holm-corrected, p < 0.05)",
	}
	for i, w := range want {
		if i >= len(lines) || lines[i] != w {
			t.Errorf("line %d: got %q; want %q\n%s", i+1, lines[min(i, len(lines)-1)], w, out)
		}
	}
	if code, out, _ := runCmd(t, "compare", "--fail-on", "drop", a, b); code != exitFailed {
		t.Errorf("--fail-on drop: exit %d; want 1\n%s", code, out)
	}
	if code, _, errOut := runCmd(t, "compare", a); code != exitUsage || !strings.Contains(errOut, "usage: evalrun compare") {
		t.Errorf("one argument: exit %d, stderr %s", code, errOut)
	}
	if code, _, errOut := runCmd(t, "compare", "--fail-on", "sometimes", a, b); code != exitUsage || !strings.Contains(errOut, `--fail-on "sometimes": want regression, drop or never`) {
		t.Errorf("a bad --fail-on: exit %d, stderr %s", code, errOut)
	}
}

// conversationScenario is a script of two user turns; the scripted model
// answers each with a final text, and expect checks the last one.
const conversationScenario = `format: tapeloop/v1
setup:
  tools: [read_file]
input:
  - {role: system, content: "Be brief."}
tape:
  - user: "Hello."
  - user: "Say done."
expect:
  termination: final_text
  iterations: 2
  final: {contains: "done"}
`

func init() {
	llm.Register("chat", llm.ProviderFunc(func(ctx context.Context, model string, opts *llm.OpenOptions) (llm.Model, error) {
		return llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
			last, _ := req.LastMessage()
			return &llm.Response{Message: llm.AssistantMessage(model + " heard: " + last.Content), FinishReason: llm.FinishStop}, nil
		}), nil
	}))
}

// TestEvalConversationSavedTrialReplays checks that the tape's user turns
// drive a live trial and that the saved trial, user turns between the
// model's answers, replays and passes with no model.
func TestEvalConversationSavedTrialReplays(t *testing.T) {
	dir := newScenarios(t, map[string]string{"chat/two-turns.yaml": conversationScenario})
	saved := filepath.Join(t.TempDir(), "trials")
	code, out, errOut := runCmd(t, "eval", "--model", "chat/done", "--trials", "1", "--save-trials", saved, dir)
	if code != exitOK || !strings.Contains(out, "chat/two-turns  1/1 pass") {
		t.Fatalf("exit %d; want 0 and 1/1 pass\n%s%s", code, out, errOut)
	}
	file := filepath.Join(saved, "chat/two-turns/chat-done/trial-1.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tape := string(data)[strings.Index(string(data), "tape:"):strings.Index(string(data), "expect:")]
	for _, want := range []string{"- user: Hello.", "content: 'done heard: Hello.'", "- user: Say done.", "content: 'done heard: Say done.'"} {
		if !strings.Contains(tape, want) {
			t.Errorf("the saved tape lacks %q:\n%s", want, tape)
		}
	}
	if !(strings.Index(tape, "- user: Hello.") < strings.Index(tape, "done heard: Hello.") &&
		strings.Index(tape, "done heard: Hello.") < strings.Index(tape, "- user: Say done.")) {
		t.Errorf("the saved tape is out of order:\n%s", tape)
	}
	if code, out, errOut := runCmd(t, "replay", saved); code != exitOK {
		t.Errorf("replaying the saved conversation: exit %d\n%s%s", code, out, errOut)
	}
}

// TestEvalResume resumes a 2-trial run to 4 trials: the first two trials
// are kept as they were and only two more run.
func TestEvalResume(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	tmp := t.TempDir()
	first, second := filepath.Join(tmp, "first.json"), filepath.Join(tmp, "second.json")
	if code, out, errOut := runCmd(t, "eval", "--model", "scripted/alternate", "--trials", "2", "--parallel", "1", "--json", first, dir); code != exitFailed {
		t.Fatalf("first run: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runCmd(t, "eval", "--model", "scripted/alternate", "--trials", "4", "--parallel", "1", "--resume", first, "--json", second, dir)
	if code != exitFailed || !strings.HasPrefix(errOut, "3/4 trials") {
		t.Fatalf("resumed run: exit %d; want 1, and progress starting at 3/4\n%s%s", code, out, errOut)
	}
	a, b := readReport(t, first), readReport(t, second)
	if got := b.Scenarios[0]; len(got.TrialsDetail) != 4 || got.Passed != 2 || got.Trials != 4 {
		t.Fatalf("resumed report: %d trials, %d/%d", len(got.TrialsDetail), got.Passed, got.Trials)
	}
	for i := range 2 {
		if !reflect.DeepEqual(a.Scenarios[0].TrialsDetail[i], b.Scenarios[0].TrialsDetail[i]) {
			t.Errorf("trial %d changed on resume", i+1)
		}
	}
	if code, _, errOut := runCmd(t, "eval", "--model", "scripted/right", "--resume", filepath.Join(tmp, "absent.json"), dir); code != exitUsage || !strings.Contains(errOut, "--resume: open") {
		t.Errorf("a missing --resume file: exit %d, stderr %s", code, errOut)
	}
}

// TestEvalMaxCost stops after the first trial: it cost $0.175, and a second
// would pass $0.2.
func TestEvalMaxCost(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	code, out, errOut := runCmd(t, "eval", "--model", "scripted/right", "--trials", "3", "--parallel", "1",
		"--price", "scripted/right=1000,1000", "--max-cost", "0.2", dir)
	want := "evalrun eval: stopped starting trials: --max-cost $0.2 would have been exceeded; 2 trials not run\n"
	if code != exitOK || !strings.Contains(errOut, want) || !strings.Contains(out, "1 passed, 0 failed, 0 errors (left out of pass@k), 2 not run (stopped: --max-cost $0.2 reached)") {
		t.Errorf("exit %d; want 0 and %q\nstdout:\n%s\nstderr:\n%s", code, want, out, errOut)
	}
}

// TestEvalSaveTrialsFailureKeepsResults: when a trial cannot be saved the
// run goes on, says so, writes its report and exits 2.
func TestEvalSaveTrialsFailureKeepsResults(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	tmp := t.TempDir()
	blocker := filepath.Join(tmp, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	jsonPath := filepath.Join(tmp, "r.json")
	code, out, errOut := runCmd(t, "eval", "--model", "scripted/right", "--trials", "2", "--save-trials", blocker, "--json", jsonPath, dir)
	if code != exitUsage || !strings.Contains(errOut, "evalrun eval: --save-trials: 2 trials could not be saved\n") || !strings.Contains(out, "2 passed, 0 failed") {
		t.Errorf("exit %d; want 2, a warning and the results\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if r := readReport(t, jsonPath); r.Summary.Passed != 2 {
		t.Errorf("the report holds %d passed trials; want 2", r.Summary.Passed)
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

// TestEvalTagSelectsAndSkipsWhatIsNoScenario: eval --tag runs only the
// scenarios with one of its tags (comma-separated, spaces around them
// ignored), and a YAML file in the folder that is no scenario is skipped,
// not an error.
func TestEvalTagSelectsAndSkipsWhatIsNoScenario(t *testing.T) {
	untagged := strings.Replace(strings.Replace(appendScenario, "tags: [files]\n", "", 1), "Append 'world'", "Append 'world' again", 1)
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario, "files/plain.yaml": untagged, "settings.yaml": "colour: blue\n"})
	jsonPath := filepath.Join(t.TempDir(), "eval.json")
	code, out, errOut := runCmd(t, "eval", "--model", "scripted/right", "--trials", "1", "--tag", "other, files", "--json", jsonPath, dir)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if r := readReport(t, jsonPath); len(r.Scenarios) != 1 || r.Scenarios[0].Name != "files/append" {
		t.Errorf("scenarios %+v; want files/append alone", r.Scenarios)
	}
}

// TestEvalRateLimitOfANamedProvider: --rpm PROVIDER=N limits that
// provider's calls: one trial's two calls at one a minute take a minute
// of the run's (virtual) clock.
func TestEvalRateLimitOfANamedProvider(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	jsonPath := filepath.Join(t.TempDir(), "eval.json")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"eval", "--model", "scripted/right", "--trials", "1", "--rpm", "scripted=1", "--json", jsonPath, dir},
		&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, clock: clock.NewVirtual(clock.Epoch)})
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, errb.String())
	}
	if r := readReport(t, jsonPath); r.Summary.WallMS != 60000 {
		t.Errorf("the run took %v ms; want 60000 (two calls a minute apart)", r.Summary.WallMS)
	}
}

// chanWriter hands each write to a channel, so a test can wait for one.
type chanWriter chan string

func (w chanWriter) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

// An interrupted eval says at once that it starts no more trials and how
// long the running ones have; one that ends uninterrupted says nothing.
func TestSayInterrupted(t *testing.T) {
	w := make(chanWriter)
	ctx, cancel := context.WithCancel(context.Background())
	stop := sayInterrupted(ctx, w, 7*time.Second)
	cancel()
	select {
	case got := <-w:
		if want := "evalrun eval: interrupted: starting no more trials; the running ones have 7s to finish\n"; got != want {
			t.Errorf("said %q, want %q", got, want)
		}
	case <-time.After(time.Minute):
		t.Fatal("nothing said a minute after the interrupt")
	}
	stop()

	quiet := make(chanWriter, 1)
	stop = sayInterrupted(context.Background(), quiet, time.Second)
	stop()
	if len(quiet) != 0 {
		t.Errorf("an eval that was not interrupted said %q", <-quiet)
	}
}
