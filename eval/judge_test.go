package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire/wiretest"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

// judgedSecret is in the judged scenario's input, so in every transcript.
const judgedSecret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123"

// judgedScenario is appendScenario scored by a rubric on the transcript
// only; its input holds a secret.
var judgedScenario = strings.Replace(strings.Replace(appendScenario,
	"  termination: final_text\n  files: {notes.txt: \"hello\\nworld\\n\"}\n  final: {contains: \"done\"}\n",
	"  judge: {rubric: \"appends world on a line of its own\", on: transcript}\n", 1),
	"Append 'world' to notes.txt.", "Append 'world' to notes.txt. My key is "+judgedSecret+".", 1)

// TestJudgeScoresTrialsAndReplays: a rubric is judged over HTTP in every
// trial (pass@k counts the verdicts, the judge's tokens and price are
// kept apart from the model's), the saved trial replays with its recorded
// verdict and no request at all, fails closed once its final text is
// edited, and never holds the secret the judged text had.
func TestJudgeScoresTrialsAndReplays(t *testing.T) {
	srv := wiretest.New(nil)
	defer srv.Close()
	dir := t.TempDir()
	s := judgedFile(t, dir)
	var saved []string
	r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
		Models: []string{"openai-compatible/right", "openai-compatible/wrong"}, JudgeModel: "openai-compatible/judge",
		Open: openServer(srv, false), Trials: 3, Parallel: 1, Clock: clock.NewVirtual(clock.Epoch),
		Prices: map[string]Price{"openai-compatible/judge": {Input: 1, Output: 1}},
		Trial: func(tr *Trial) error {
			p, err := SaveTrial(context.Background(), filepath.Join(dir, "trials"), tr, nil)
			saved = append(saved, p)
			return err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	right, wrong := r.Scenarios[0], r.Scenarios[1]
	if right.Passed != 3 || right.PassAtK[1] != 1 || wrong.Passed != 0 || wrong.Trials != 3 || wrong.PassAtK[1] != 0 {
		t.Fatalf("right %d/%d pass@1 %v, wrong %d/%d pass@1 %v; want 3/3 1, 0/3 0", right.Passed, right.Trials, right.PassAtK[1], wrong.Passed, wrong.Trials, wrong.PassAtK[1])
	}
	if wrong.Failures["judge[0]"] != 3 {
		t.Errorf("wrong failures %v; want judge[0] 3 times", wrong.Failures)
	}
	tr := right.TrialsDetail[0]
	if len(tr.Judge) != 1 || !tr.Judge[0].Passed || tr.Judge[0].Model != "openai-compatible/judge" || tr.Judge[0].Score != 1 || tr.Judge[0].On != "transcript" {
		t.Fatalf("right trial verdicts %+v; want one passing verdict of the judge", tr.Judge)
	}
	// One judge call a trial: 50 in (20 cached), 10 out, at $1/M tokens.
	if want := (report.Tokens{Input: 50, Output: 10, Cached: 20}); tr.JudgeTokens == nil || *tr.JudgeTokens != want || tr.Tokens.Input != 100 {
		t.Errorf("judge tokens %v, model tokens %+v; want %+v apart from the model's 100 in", tr.JudgeTokens, tr.Tokens, want)
	}
	if tr.Cost == nil || !near(*tr.Cost, 60.0/1e6) {
		t.Errorf("trial cost %v; want the judge's 60 tokens at $1/M", tr.Cost)
	}
	want := s.Path + ":12: expect.judge[0]: the judge (openai-compatible/judge) failed it (score 0): the text ends with assistant: done"
	if f := wrong.TrialsDetail[0].Failures; len(f) != 1 || !strings.HasPrefix(f[0], want) {
		t.Errorf("wrong trial failures %q; want %q...", f, want)
	}
	for _, p := range saved {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		_, judge, ok := strings.Cut(string(b), "\njudge:\n")
		if !ok || strings.Contains(judge, judgedSecret) || !strings.Contains(judge, "My key is [REDACTED].") {
			t.Fatalf("%s has no judge: section, or it holds the secret:\n%s", p, b)
		}
	}
	if strings.Contains(tr.Judge[0].Judged, judgedSecret) || !strings.Contains(tr.Judge[0].Judged, "[REDACTED]") {
		t.Errorf("the report's judged text keeps the secret: %q", tr.Judge[0].Judged)
	}

	// Replayed offline: the recorded verdicts, no request.
	before := srv.Requests()
	for i, p := range saved {
		v := harness.Verify(context.Background(), p, nil)
		if v.Err != nil || v.Passed() != (i%2 == 0) {
			t.Errorf("replaying %s: err %v, failures %q; want passed %v", p, v.Err, v.Failures, i%2 == 0)
		}
	}
	if n := srv.Requests() - before; n != 0 {
		t.Errorf("the replays made %d requests; want none", n)
	}

	// The final text edited: the verdict is not re-used.
	b, _ := os.ReadFile(saved[0])
	edited := strings.Replace(string(b), "content: done\n", "content: done, and more\n", 1)
	if edited == string(b) {
		t.Fatalf("no final text to edit in\n%s", b)
	}
	if err := os.WriteFile(saved[0], []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	v := harness.Verify(context.Background(), saved[0], nil)
	if !strings.Contains(fmt.Sprint(v.Failure()), ": judge[0]: the judged text changed: re-record the verdict with `evalrun record --mode judge") {
		t.Errorf("edited: failures %q; want the judged text changed", v.Failures)
	}
	if n := srv.Requests() - before; n != 0 {
		t.Errorf("the replays made %d requests; want none", n)
	}
}

// TestJudgeGarbageIsAnErrorTrial: a judge whose answer is no verdict makes
// error trials (left out of pass@k), never passes; an item with no judge
// model and no default stops the run before it starts.
func TestJudgeGarbageIsAnErrorTrial(t *testing.T) {
	srv := wiretest.New(nil)
	defer srv.Close()
	s := parse(t, judgedScenario, "files/append")
	r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
		Models: []string{"openai-compatible/right"}, JudgeModel: "openai-compatible/judge-garbage",
		Open: openServer(srv, false), Trials: 2, Clock: clock.NewVirtual(clock.Epoch),
	})
	if err != nil {
		t.Fatal(err)
	}
	row := r.Scenarios[0]
	if row.Errors != 2 || row.Trials != 0 || row.Passed != 0 || row.Class != report.ClassError {
		t.Errorf("%d errors, %d/%d, %s; want 2 error trials", row.Errors, row.Passed, row.Trials, row.Class)
	}
	want := "files/append.yaml:12: expect.judge[0]: the judge openai-compatible/judge-garbage: the judge's answer is not a verdict"
	if e := row.TrialsDetail[0].Error; !strings.HasPrefix(e, want) {
		t.Errorf("error %q; want %q...", e, want)
	}
	// The report's verdict of the item says what went wrong.
	if j := row.TrialsDetail[0].Judge; len(j) != 1 || !strings.HasPrefix(j[0].Problem, want) {
		t.Errorf("judge verdicts %+v; want the item's problem %q...", j, want)
	}
	_, err = Run(context.Background(), []*scenario.Scenario{s}, &Options{Models: []string{"openai-compatible/right"}, Open: openServer(srv, false)})
	if !errors.Is(err, ErrNoJudgeModel) {
		t.Errorf("no judge model: %v; want ErrNoJudgeModel", err)
	}
}

// judgedFile writes judgedScenario under dir and loads it.
func judgedFile(t *testing.T, dir string) *scenario.Scenario {
	t.Helper()
	path := filepath.Join(dir, "append.yaml")
	if err := os.WriteFile(path, []byte(judgedScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestJudgeOfAnotherProviderHasItsOwnGate: a judge of a provider no model
// under evaluation uses gets that provider's gate, and with it the
// provider's rate limit: one judge call a minute spaces the trials' judge
// calls a minute apart.
func TestJudgeOfAnotherProviderHasItsOwnGate(t *testing.T) {
	srv := wiretest.New(nil)
	defer srv.Close()
	open := openServer(srv, false)
	s := parse(t, judgedScenario, "files/append")
	r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
		Models: []string{"openai-compatible/right"}, JudgeModel: "judges/judge",
		Open: func(ctx context.Context, name string) (llm.Model, error) {
			return open(ctx, strings.Replace(name, "judges/", "openai-compatible/", 1))
		},
		Limits: map[string]Limit{"judges": {RPM: 1}},
		Trials: 3, Parallel: 1, Clock: clock.NewVirtual(clock.Epoch),
	})
	if err != nil {
		t.Fatal(err)
	}
	if row := r.Scenarios[0]; row.Passed != 3 || row.Errors != 0 {
		t.Fatalf("%d of %d passed, %d errors; want 3 judged passes", row.Passed, row.Trials, row.Errors)
	}
	if got := r.Summary.WallMS; got < 120000 {
		t.Errorf("the run took %v ms; want at least 2 min, three judge calls a minute apart", got)
	}
}
