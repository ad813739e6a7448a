package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/internal/netguard"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// appendScenario asks for a line appended to notes.txt; its expect block
// checks the file and the final text.
const appendScenario = `format: tapeloop/v1
name: files/append
setup:
  seed: 7
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

func parse(t *testing.T, text, name string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Parse([]byte(text), name+".yaml", name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// writer is a scripted model: its first answer writes content to notes.txt,
// its second says final.
func writer(content, final string) llm.Model {
	return llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		if last, _ := req.LastMessage(); last.Role == llm.RoleTool {
			return &llm.Response{Message: llm.AssistantMessage(final), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 100, OutputTokens: 10}}, nil
		}
		args := fmt.Sprintf(`{"path": "notes.txt", "content": %q}`, content)
		return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "write_file", Arguments: args}),
			FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 50, OutputTokens: 20}}, nil
	})
}

func opener(models map[string]llm.Model) func(context.Context, string) (llm.Model, error) {
	return func(_ context.Context, name string) (llm.Model, error) {
		m, ok := models[name]
		if !ok {
			return nil, errors.New("no such model")
		}
		return m, nil
	}
}

// TestRunScoresTrials runs a right and a wrong model: classes, counts,
// pass@k, failures by expectation, tokens and cost, and the comparison.
func TestRunScoresTrials(t *testing.T) {
	s := parse(t, appendScenario, "files/append")
	r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
		Models:   []string{"test/right", "test/wrong"},
		Open:     opener(map[string]llm.Model{"test/right": writer("hello\nworld\n", "done"), "test/wrong": writer("world\n", "done")}),
		Trials:   3,
		Parallel: 3,
		Prices:   map[string]Price{"test/right": {Input: 1, Output: 2}},
		Clock:    clock.NewVirtual(clock.Epoch),
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Format != report.EvalFormat || len(r.Scenarios) != 2 || len(r.Models) != 2 {
		t.Fatalf("got format %q, %d rows, %d models", r.Format, len(r.Scenarios), len(r.Models))
	}
	right, wrong := r.Scenarios[0], r.Scenarios[1]
	if right.Model != "test/right" || right.Trials != 3 || right.Passed != 3 || right.Class != report.ClassPass {
		t.Errorf("right: %s %d/%d %s", right.Model, right.Passed, right.Trials, right.Class)
	}
	if wrong.Model != "test/wrong" || wrong.Trials != 3 || wrong.Passed != 0 || wrong.Class != report.ClassFail {
		t.Errorf("wrong: %s %d/%d %s", wrong.Model, wrong.Passed, wrong.Trials, wrong.Class)
	}
	if want := map[string]int{"files[notes.txt]": 3}; !reflect.DeepEqual(wrong.Failures, want) {
		t.Errorf("wrong.Failures = %v; want %v", wrong.Failures, want)
	}
	if want := map[int]float64{1: 1, 2: 1, 3: 1}; !reflect.DeepEqual(right.PassAtK, want) {
		t.Errorf("right.PassAtK = %v; want %v", right.PassAtK, want)
	}
	if want := map[int]float64{1: 0, 2: 0, 3: 0}; !reflect.DeepEqual(wrong.PassHatK, want) {
		t.Errorf("wrong.PassHatK = %v; want %v", wrong.PassHatK, want)
	}
	// Two calls a trial: 150 input and 30 output tokens.
	if want := (report.Tokens{Input: 450, Output: 90}); right.Tokens != want {
		t.Errorf("right.Tokens = %+v; want %+v", right.Tokens, want)
	}
	if right.Cost == nil || !near(*right.Cost, (450*1+90*2)/1e6) {
		t.Errorf("right.Cost = %v; want %v", right.Cost, (450*1+90*2)/1e6)
	}
	if wrong.Cost != nil {
		t.Errorf("wrong.Cost = %v; want none (no price)", *wrong.Cost)
	}
	for i, tr := range wrong.TrialsDetail {
		if tr.Trial != i+1 || tr.Seed != TrialSeed(7, i+1) || tr.Status != report.StatusFail || len(tr.Tape) != 2 || tr.Iterations != 2 {
			t.Errorf("wrong trial %d: %+v", i+1, tr)
		}
		// The end state the expectation looked at comes with the trial.
		if es := tr.EndState; es == nil || len(es.Files) != 1 || es.Files["notes.txt"] == nil || *es.Files["notes.txt"] != "world\n" || es.State != "" {
			t.Errorf("wrong trial %d end state %+v; want notes.txt = world", i+1, es)
		}
		want := `files/append.yaml:13: expect.files: expected notes.txt to hold "hello\nworld\n", found "world\n"`
		if len(tr.Failures) != 1 || tr.Failures[0] != want {
			t.Errorf("wrong trial %d failures = %q; want [%q]", i+1, tr.Failures, want)
		}
	}
	sum := r.Summary
	if sum.Trials != 6 || sum.Passed != 3 || sum.Failed != 3 || sum.Errors != 0 || sum.OK {
		t.Errorf("summary %+v", sum)
	}
	c := sum.Comparison
	// 3/3 against 0/3 on one scenario: Fisher p = 2/20, and the
	// bootstrap's interval reaches 0; three trials cannot prove it.
	if c == nil || c.A != "test/right" || c.B != "test/wrong" || c.Difference != -1 || c.Low != -1 || c.High < 0 || c.Better != "" {
		t.Errorf("comparison %+v", c)
	}
	if !r.Models[0].MeetsMinPass || r.Models[1].MeetsMinPass {
		t.Errorf("MeetsMinPass: right %v, wrong %v", r.Models[0].MeetsMinPass, r.Models[1].MeetsMinPass)
	}
}

// TestRunFlakyAndErrors runs, one trial at a time, a model that answers
// right, wrong, and fails: a flaky class, and error trials left out of
// pass@k and retried with RetryErrors.
func TestRunFlakyAndErrors(t *testing.T) {
	s := parse(t, appendScenario, "files/append")
	right, wrong := writer("hello\nworld\n", "done"), writer("hello\n", "done")
	var trial atomic.Int64
	// Behaviour by the order runs start (Parallel 1): trial 1 right, 2
	// wrong, 3 an error then right on its retry, 4 an error twice.
	plan := []string{"right", "wrong", "error", "right", "error", "error"}
	model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		if len(req.Messages) == 1 {
			trial.Add(1)
		}
		switch plan[trial.Load()-1] {
		case "right":
			return right.Generate(ctx, req)
		case "wrong":
			return wrong.Generate(ctx, req)
		}
		return nil, errors.New("provider down")
	})
	r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
		Models: []string{"test/m"}, Open: opener(map[string]llm.Model{"test/m": model}),
		Trials: 4, Parallel: 1, RetryErrors: 1, Clock: clock.NewVirtual(clock.Epoch),
	})
	if err != nil {
		t.Fatal(err)
	}
	row := r.Scenarios[0]
	var statuses []string
	for _, tr := range row.TrialsDetail {
		statuses = append(statuses, fmt.Sprintf("%d:%s/%d", tr.Trial, tr.Status, tr.Attempts))
	}
	if got, want := strings.Join(statuses, " "), "1:pass/1 2:fail/1 3:pass/2 4:error/2"; got != want {
		t.Errorf("trials %s; want %s", got, want)
	}
	if row.Trials != 3 || row.Passed != 2 || row.Errors != 1 || row.Class != report.ClassFlaky {
		t.Errorf("row %d/%d errors %d class %s", row.Passed, row.Trials, row.Errors, row.Class)
	}
	if !near(row.PassAtK[1], 2.0/3) || !near(row.PassAtK[2], 1) || !near(row.PassHatK[2], 1.0/3) || len(row.PassAtK) != 3 {
		t.Errorf("pass@k %v pass^k %v; want n=3 c=2", row.PassAtK, row.PassHatK)
	}
	if row.TrialsDetail[3].Error == "" || !strings.Contains(row.TrialsDetail[3].Error, "provider down") {
		t.Errorf("error trial's error = %q", row.TrialsDetail[3].Error)
	}
}

// TestRunRefusesScenarioWithoutExpect checks the message for a scenario with
// nothing to score.
func TestRunRefusesScenarioWithoutExpect(t *testing.T) {
	s := parse(t, "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\n", "noexpect")
	_, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{Models: []string{"test/m"}, Open: opener(nil)})
	if want := "noexpect.yaml: scenario has no expect block (nothing to score a live run with)"; err == nil || err.Error() != want || !errors.Is(err, ErrNoExpect) {
		t.Errorf("got %v; want %q", err, want)
	}
}

// TestRunOpenError checks that a model that cannot be opened stops the run
// before any trial, naming the model.
func TestRunOpenError(t *testing.T) {
	s := parse(t, appendScenario, "files/append")
	_, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{Models: []string{"test/absent"}, Open: opener(nil)})
	if want := "opening model test/absent: no such model"; err == nil || err.Error() != want || !errors.Is(err, ErrOpen) {
		t.Errorf("got %v; want %q", err, want)
	}
	_, err = Run(context.Background(), []*scenario.Scenario{s}, &Options{Models: []string{"noslash"}, Open: opener(nil)})
	if want := `model name must be "PROVIDER/MODEL", got "noslash"`; err == nil || err.Error() != want {
		t.Errorf("got %v; want %q", err, want)
	}
}

// TestLeftoverUserTurnsFailTheTrial: a model that ends the conversation
// with a loop-breaking tool before the tape's second user turn fails the
// trial under the key user_turns.
func TestLeftoverUserTurnsFailTheTrial(t *testing.T) {
	s := parse(t, `format: tapeloop/v1
setup:
  tools: [task_complete]
input: []
tape:
  - user: "Start."
  - user: "Go on."
expect:
  termination: loop_breaking
`, "chat")
	quitter := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "c1", Name: "task_complete", Arguments: `{"summary": "done"}`})}, nil
	})
	r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{Models: []string{"test/q"}, Open: opener(map[string]llm.Model{"test/q": quitter}), Trials: 1, Clock: clock.NewVirtual(clock.Epoch)})
	if err != nil {
		t.Fatal(err)
	}
	row := r.Scenarios[0]
	want := "chat.yaml: the run ended (loop_breaking) before every user turn of the tape was spoken"
	if row.Passed != 0 || row.Failures["user_turns"] != 1 || len(row.TrialsDetail[0].Failures) != 1 || row.TrialsDetail[0].Failures[0] != want {
		t.Errorf("row %d/%d failures %v %q; want 0/1, user_turns 1, %q", row.Passed, row.Trials, row.Failures, row.TrialsDetail[0].Failures, want)
	}
}

// TestFailureKeysNameTheExpectation: failures are counted under the
// expectation that failed, even when one expected file's path is a prefix
// of another's and the scenario's own path holds ": expect.".
func TestFailureKeysNameTheExpectation(t *testing.T) {
	const text = `format: tapeloop/v1
setup:
  workspace:
    files: {notes: "a", "notes x": "b"}
  tools: [write_file]
input: [{role: user, content: write}]
tape: []
expect:
  files: {notes: "a", "notes x": "wrong"}
  said: [{contains: "absent"}]
`
	s := parse(t, text, "odd: expect.files/name")
	m := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.AssistantMessage("done"), FinishReason: llm.FinishStop}, nil
	})
	r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
		Models: []string{"test/m"},
		Open:   opener(map[string]llm.Model{"test/m": m}),
		Trials: 2,
		Clock:  clock.NewVirtual(clock.Epoch),
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{"files[notes x]": 2, "said[0]": 2}; !reflect.DeepEqual(r.Scenarios[0].Failures, want) {
		t.Errorf("Failures = %v; want %v", r.Scenarios[0].Failures, want)
	}
}

// A run of two scenarios against two models runs every pair, reports a
// row for each, and counts the progress over all of them; two scenarios
// of the same name are refused before anything runs.
func TestRunOfSeveralScenariosAndModels(t *testing.T) {
	a := parse(t, appendScenario, "files/append")
	b := parse(t, strings.Replace(appendScenario, "name: files/append\n", "name: files/append-again\n", 1), "files/append-again")
	models := map[string]llm.Model{"test/one": writer("hello\nworld\n", "done"), "test/two": writer("hello\nworld\n", "done")}
	var seen []Progress
	r, err := Run(context.Background(), []*scenario.Scenario{b, a}, &Options{
		Models: []string{"test/one", "test/two"}, Open: opener(models), Trials: 2, Parallel: 1,
		Clock: clock.NewVirtual(clock.Epoch), Progress: func(p Progress) { seen = append(seen, p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, row := range r.Scenarios {
		rows = append(rows, fmt.Sprintf("%s %s %d/%d", row.Name, row.Model, row.Passed, row.Trials))
	}
	want := []string{"files/append test/one 2/2", "files/append test/two 2/2", "files/append-again test/one 2/2", "files/append-again test/two 2/2"}
	if !slices.Equal(rows, want) {
		t.Errorf("rows %q; want %q", rows, want)
	}
	if len(seen) != 8 || seen[0].Done != 1 || seen[0].Total != 8 || seen[7].Done != 8 || seen[7].Total != 8 {
		t.Errorf("progress %+v; want 8 reports, from 1/8 to 8/8", seen)
	}

	dup := parse(t, appendScenario, "other/append")
	_, err = Run(context.Background(), []*scenario.Scenario{a, dup}, &Options{Models: []string{"test/one"}, Open: opener(models)})
	if err == nil || !strings.Contains(err.Error(), `files/append.yaml and other/append.yaml are both named "files/append"`) {
		t.Errorf("two scenarios named files/append: %v; want them refused by path", err)
	}
}

// MaxCost holds a trial back when what was spent, plus what the trials in
// flight are expected to spend (each model's average cost so far), plus
// this trial's expected cost would pass the limit; reaching it exactly is
// allowed. A model with no cost yet is expected to spend nothing.
func TestMaxCostExpectsTheTrialsInFlight(t *testing.T) {
	for _, c := range []struct {
		name     string
		spent    map[string]float64
		done     map[string]int
		inFlight map[string]int
		model    string
		max      float64
		admit    bool
	}{
		// 0.75 spent over 3 trials, 2 in flight: 0.75 + 2·0.25 + 0.25 = 1.5.
		{"in flight, over", map[string]float64{"a": 0.75}, map[string]int{"a": 3}, map[string]int{"a": 2}, "a", 1.4, false},
		{"in flight, under", map[string]float64{"a": 0.75}, map[string]int{"a": 3}, map[string]int{"a": 2}, "a", 1.6, true},
		// 0.5 spent over 2 trials: 0.5 + 0.25 is exactly the limit.
		{"exactly at the limit", map[string]float64{"a": 0.5}, map[string]int{"a": 2}, nil, "a", 0.75, true},
		// 0.75 over 3: the next is expected at the average 0.25, not 0.75·3.
		{"the average", map[string]float64{"a": 0.75}, map[string]int{"a": 3}, nil, "a", 1.1, true},
		// b has cost nothing yet, but a's spending alone passes the limit.
		{"a model without cost", map[string]float64{"a": 0.75}, map[string]int{"a": 1}, nil, "b", 0.5, false},
	} {
		r := &runner{opts: &Options{MaxCost: c.max}, spent: c.spent, costDone: c.done, inFlight: c.inFlight}
		if c.inFlight == nil {
			r.inFlight = map[string]int{}
		}
		got := r.admit(context.Background(), c.model)
		if got != c.admit || (r.stopped == report.StoppedMaxCost) == c.admit {
			t.Errorf("%s: admitted %v, stopped %q; want admitted %v", c.name, got, r.stopped, c.admit)
		}
	}
}

// Run fails with the first error Options.Trial returned; the trials still
// run to the end.
func TestRunReturnsTheFirstTrialHookError(t *testing.T) {
	var seen []int
	_, err := Run(context.Background(), []*scenario.Scenario{parse(t, appendScenario, "files/append")}, &Options{
		Models: []string{"test/m"}, Open: opener(map[string]llm.Model{"test/m": writer("hello\nworld\n", "done")}),
		Trials: 3, Parallel: 1, Clock: clock.NewVirtual(clock.Epoch),
		Trial: func(tr *Trial) error {
			seen = append(seen, tr.Report.Trial)
			if tr.Report.Trial == 1 {
				return nil
			}
			return fmt.Errorf("saving trial %d failed", tr.Report.Trial)
		},
	})
	if err == nil || err.Error() != "saving trial 2 failed" || !slices.Equal(seen, []int{1, 2, 3}) {
		t.Errorf("err %v after the hook saw trials %v; want the error of trial 2 after all 3", err, seen)
	}
}

// The progress counts passed, scored (passed or failed) and error trials.
func TestProgressCountsOutcomes(t *testing.T) {
	broken := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		return nil, &llm.ProviderError{Kind: llm.ErrAuth, StatusCode: 401}
	})
	models := map[string]llm.Model{"test/right": writer("hello\nworld\n", "done"), "test/wrong": writer("hello\n", "done"), "test/broken": broken}
	var last Progress
	_, err := Run(context.Background(), []*scenario.Scenario{parse(t, appendScenario, "files/append")}, &Options{
		Models: []string{"test/right", "test/wrong", "test/broken"}, Open: opener(models), Trials: 2, Parallel: 1,
		Clock: clock.NewVirtual(clock.Epoch), Progress: func(p Progress) { last = p },
	})
	if err != nil {
		t.Fatal(err)
	}
	if last.Done != 6 || last.Passed != 2 || last.Scored != 4 || last.Errors != 2 {
		t.Errorf("last progress %+v; want 6 done, 2 passed, 4 scored, 2 errors", last)
	}
}

// TestRunModelWallTimeUnderARateLimit: a model's wall time runs from its
// first trial's start to its last one's end on the run's clock: two
// trials of two calls each at one call a minute take three minutes.
func TestRunModelWallTimeUnderARateLimit(t *testing.T) {
	r, err := Run(context.Background(), []*scenario.Scenario{parse(t, appendScenario, "files/append")}, &Options{
		Models: []string{"test/m"}, Open: opener(map[string]llm.Model{"test/m": writer("hello\nworld\n", "done")}),
		Limits: map[string]Limit{"test": {RPM: 1}}, Trials: 2, Parallel: 1, Clock: clock.NewVirtual(clock.Epoch),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Models[0].WallMS; got != 180000 {
		t.Errorf("the model's wall time is %v ms; want 180000 (four calls a minute apart)", got)
	}
	if got := r.Summary.WallMS; got != 180000 {
		t.Errorf("the run's wall time is %v ms; want 180000", got)
	}
}

// TestRunOpensModelsByNameWithoutOpen: with no Options.Open the models are
// opened by name (llm.Open), and one no provider knows is refused before
// any trial runs, named in the error.
func TestRunOpensModelsByNameWithoutOpen(t *testing.T) {
	_, err := Run(context.Background(), []*scenario.Scenario{parse(t, appendScenario, "files/append")}, &Options{Models: []string{"nosuchprovider/m"}})
	if !errors.Is(err, ErrOpen) || !strings.Contains(err.Error(), "nosuchprovider") {
		t.Errorf("Run = %v; want ErrOpen naming nosuchprovider", err)
	}
}

// TestRunRefusesAJudgeThatDoesNotOpen: a judge model that cannot be
// opened stops the run before any trial, with the opening's error.
func TestRunRefusesAJudgeThatDoesNotOpen(t *testing.T) {
	var trials atomic.Int64
	models := map[string]llm.Model{"test/m": counting(writer("hello\nworld\n", "done"), &trials, nil)}
	_, err := Run(context.Background(), []*scenario.Scenario{parse(t, judgedScenario, "files/append")}, &Options{
		Models: []string{"test/m"}, JudgeModel: "test/judge", Open: opener(models), Trials: 2, Clock: clock.NewVirtual(clock.Epoch),
	})
	if !errors.Is(err, ErrOpen) || !strings.Contains(err.Error(), "opening model test/judge: no such model") || trials.Load() != 0 {
		t.Errorf("Run = %v after %d trials; want the judge's opening error before any trial", err, trials.Load())
	}
}

// TestRunReachesLiveModelsDuringAReplay: an evaluation's calls are live
// traffic: a replay running meanwhile in the same process (which refuses
// requests through http.DefaultTransport) refuses neither the model's
// calls nor the judge's, which are made outside the trial's loop.
func TestRunReachesLiveModelsDuringAReplay(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	_, guarded := netguard.Begin(context.Background(), "another/scenario", nil)
	defer guarded.End()
	// online answers as answer does after a request of its own through
	// http.DefaultClient, as a provider's SDK would make.
	online := func(answer llm.Model) llm.Model {
		return llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
			hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
			if err != nil {
				return nil, err
			}
			resp, err := http.DefaultClient.Do(hreq)
			if err != nil {
				return nil, err
			}
			resp.Body.Close()
			return answer.Generate(ctx, req)
		})
	}
	verdict := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.AssistantMessage(`{"score": 1, "pass": true, "reason": "it does"}`)}, nil
	})
	models := map[string]llm.Model{"test/m": online(writer("hello\nworld\n", "done")), "test/judge": online(verdict)}
	r, err := Run(context.Background(), []*scenario.Scenario{parse(t, judgedScenario, "files/append")}, &Options{
		Models: []string{"test/m"}, JudgeModel: "test/judge", Open: opener(models), Trials: 1, ModelRetries: -1, Clock: clock.NewVirtual(clock.Epoch),
	})
	if err != nil {
		t.Fatal(err)
	}
	if row := r.Scenarios[0]; row.Passed != 1 || row.Errors != 0 {
		t.Errorf("%d passed, %d errors (%q); want the trial to reach its model and judge and pass", row.Passed, row.Errors, row.TrialsDetail[0].Error)
	}
	if refused := guarded.End(); len(refused) != 0 {
		t.Errorf("the replay refused %q", refused)
	}
}

// interruptingClock is a virtual clock on which every wait is interrupted:
// Sleep cancels the run (as Ctrl-C would while a call waits to be retried)
// and fails.
type interruptingClock struct {
	*clock.Virtual
	cancel context.CancelFunc
}

func (c interruptingClock) Sleep(ctx context.Context, _ time.Duration) error {
	c.cancel()
	return ctx.Err()
}

// TestRunInterruptedWhileARetryWaits: a run interrupted while a rate-
// limited call waits for its retry sends the model nothing more and
// reports the run interrupted, the trial not run.
func TestRunInterruptedWhileARetryWaits(t *testing.T) {
	var calls atomic.Int32
	limited := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		calls.Add(1)
		return nil, &llm.ProviderError{Kind: llm.ErrRateLimited, StatusCode: 429}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := Run(ctx, []*scenario.Scenario{parse(t, appendScenario, "files/append")}, &Options{
		Models: []string{"test/m"}, Open: opener(map[string]llm.Model{"test/m": limited}), Trials: 1,
		Clock: interruptingClock{clock.NewVirtual(clock.Epoch), cancel},
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 || r.Summary.Stopped != report.StoppedInterrupted || r.Summary.NotRun != 1 {
		t.Errorf("%d calls, stopped %q, %d not run; want 1 call and the trial not run, interrupted", calls.Load(), r.Summary.Stopped, r.Summary.NotRun)
	}
}

// TestTrialHookGetsTheScenariosTape: the tape a trial hook is given is
// named after its scenario, came from no file, and holds one entry per
// model call.
func TestTrialHookGetsTheScenariosTape(t *testing.T) {
	var tapes []*tape.Tape
	_, err := Run(context.Background(), []*scenario.Scenario{parse(t, appendScenario, "files/append")}, &Options{
		Models: []string{"test/m"}, Open: opener(map[string]llm.Model{"test/m": writer("hello\nworld\n", "done")}),
		Trials: 1, Clock: clock.NewVirtual(clock.Epoch),
		Trial: func(tr *Trial) error { tapes = append(tapes, tr.Tape); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tapes) != 1 || tapes[0].Name != "files/append" || tapes[0].File != "" || len(tapes[0].Entries) != 2 {
		t.Errorf("tapes %+v; want one named files/append, from no file, of 2 entries", tapes)
	}
}

// TestRunEndStateOfAnExpectedFileThatIsGone: a trial's end state lists
// each file the expect block names, one the run deleted (or never wrote)
// as absent (nil), beside the content of the others.
func TestRunEndStateOfAnExpectedFileThatIsGone(t *testing.T) {
	gone := strings.Replace(appendScenario, `files: {notes.txt: "hello\nworld\n"}`, `files: {notes.txt: "hello\nworld\n", draft.txt: null}`, 1)
	r, err := Run(context.Background(), []*scenario.Scenario{parse(t, gone, "files/append")}, &Options{
		Models: []string{"test/m"}, Open: opener(map[string]llm.Model{"test/m": writer("hello\nworld\n", "done")}),
		Trials: 1, Clock: clock.NewVirtual(clock.Epoch),
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := r.Scenarios[0].TrialsDetail[0]
	files := tr.EndState.Files
	draft, listed := files["draft.txt"]
	if !tr.Passed || len(files) != 2 || !listed || draft != nil || files["notes.txt"] == nil || *files["notes.txt"] != "hello\nworld\n" {
		t.Errorf("passed %v, end state files %v; want notes.txt's content and draft.txt listed as absent", tr.Passed, files)
	}
}

// TestRunRetryWaitPastTheClocksDeadline: a failed call whose retry would
// wait past the run clock's deadline fails there, with the deadline's
// error, and is not sent again.
func TestRunRetryWaitPastTheClocksDeadline(t *testing.T) {
	var calls atomic.Int32
	overloaded := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		calls.Add(1)
		return nil, &llm.ProviderError{Kind: llm.ErrOverloaded, StatusCode: 503}
	})
	r, err := Run(context.Background(), []*scenario.Scenario{parse(t, appendScenario, "files/append")}, &Options{
		Models: []string{"test/m"}, Open: opener(map[string]llm.Model{"test/m": overloaded}), Trials: 1,
		Clock: clock.NewVirtual(clock.Epoch).Fork(clock.Epoch.Add(time.Second / 2)),
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := r.Scenarios[0].TrialsDetail[0]
	if calls.Load() != 1 || tr.Status != report.StatusError || !strings.Contains(tr.Error, context.DeadlineExceeded.Error()) {
		t.Errorf("%d calls, trial %s (%q); want one call and an error trial at the deadline", calls.Load(), tr.Status, tr.Error)
	}
}
