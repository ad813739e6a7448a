package eval

import (
	"context"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

// counting wraps a model and counts the trials it served (first calls).
func counting(m llm.Model, trials *atomic.Int64, onTrial func(n int64)) llm.Model {
	return llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		if len(req.Messages) == 1 {
			n := trials.Add(1)
			if onTrial != nil {
				onTrial(n)
			}
		}
		return m.Generate(ctx, req)
	})
}

// TestMaxCostStopsStartingTrials: each trial costs 150 input + 30 output
// tokens at $1/$2 per million = $0.00021; a budget of $0.0005 admits the
// second trial (0.00021 spent + 0.00021 expected) but not the third.
func TestMaxCostStopsStartingTrials(t *testing.T) {
	s := parse(t, appendScenario, "files/append")
	var trials atomic.Int64
	r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
		Models: []string{"test/m"}, Open: opener(map[string]llm.Model{"test/m": counting(writer("hello\nworld\n", "done"), &trials, nil)}),
		Trials: 5, Parallel: 1, Prices: map[string]Price{"test/m": {Input: 1, Output: 2}}, MaxCost: 0.0005,
		Clock: clock.NewVirtual(clock.Epoch),
	})
	if err != nil {
		t.Fatal(err)
	}
	row := r.Scenarios[0]
	if trials.Load() != 2 || row.Trials != 2 || row.NotRun != 3 || r.Summary.NotRun != 3 {
		t.Errorf("%d trials ran, row %d scored %d not run; want 2 ran, 3 not run", trials.Load(), row.Trials, row.NotRun)
	}
	if r.Summary.Stopped != report.StoppedMaxCost || r.Summary.MaxCost == nil || *r.Summary.MaxCost != 0.0005 {
		t.Errorf("summary stopped %q max cost %v; want max_cost 0.0005", r.Summary.Stopped, r.Summary.MaxCost)
	}
	if r.Summary.Cost == nil || !near(*r.Summary.Cost, 2*0.00021) {
		t.Errorf("cost %v; want %v", r.Summary.Cost, 2*0.00021)
	}
}

// TestInterruptKeepsWhatFinished cancels the run while the third trial is
// running: the first two are reported, the rest not run, and the run says
// it was interrupted.
func TestInterruptKeepsWhatFinished(t *testing.T) {
	s := parse(t, appendScenario, "files/append")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var trials atomic.Int64
	model := counting(writer("hello\nworld\n", "done"), &trials, func(n int64) {
		if n == 3 {
			cancel()
		}
	})
	r, err := Run(ctx, []*scenario.Scenario{s}, &Options{
		Models: []string{"test/m"}, Open: opener(map[string]llm.Model{"test/m": model}),
		Trials: 5, Parallel: 1, Clock: clock.NewVirtual(clock.Epoch),
	})
	if err != nil {
		t.Fatal(err)
	}
	row := r.Scenarios[0]
	if len(row.TrialsDetail) != 2 || row.Passed != 2 || row.NotRun != 3 {
		t.Errorf("%d trials reported (%d passed), %d not run; want 2, 2, 3", len(row.TrialsDetail), row.Passed, row.NotRun)
	}
	if r.Summary.Stopped != report.StoppedInterrupted || r.Summary.OK {
		t.Errorf("stopped %q ok %v; want interrupted, not ok", r.Summary.Stopped, r.Summary.OK)
	}
}

// TestResumeSkipsFinishedTrials resumes from the report of a 2-trial run
// with one error trial: the passed trial is kept as it was, the error trial
// and the new third trial run.
func TestResumeSkipsFinishedTrials(t *testing.T) {
	s := parse(t, appendScenario, "files/append")
	var first atomic.Int64
	flaky := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		if len(req.Messages) == 1 && first.Add(1) == 2 {
			return nil, &llm.ProviderError{Kind: llm.ErrAuth, StatusCode: 401}
		}
		return writer("hello\nworld\n", "done").Generate(ctx, req)
	})
	prev, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
		Models: []string{"test/m"}, Open: opener(map[string]llm.Model{"test/m": flaky}), Trials: 2, Parallel: 1, Clock: clock.NewVirtual(clock.Epoch),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := prev.Scenarios[0].TrialsDetail; len(got) != 2 || got[0].Status != report.StatusPass || got[1].Status != report.StatusError {
		t.Fatalf("first run's trials: %+v", got)
	}
	var trials atomic.Int64
	r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
		Models: []string{"test/m"}, Open: opener(map[string]llm.Model{"test/m": counting(writer("hello\nworld\n", "done"), &trials, nil)}),
		Trials: 3, Parallel: 2, Resume: prev, Clock: clock.NewVirtual(clock.Epoch),
	})
	if err != nil {
		t.Fatal(err)
	}
	row := r.Scenarios[0]
	if trials.Load() != 2 || row.Trials != 3 || row.Passed != 3 || row.Errors != 0 {
		t.Errorf("%d trials ran; row %d/%d, %d errors; want 2 ran (trials 2 and 3), 3/3", trials.Load(), row.Passed, row.Trials, row.Errors)
	}
	if !reflect.DeepEqual(row.TrialsDetail[0], prev.Scenarios[0].TrialsDetail[0]) {
		t.Errorf("the resumed trial changed:\n%+v\nwas\n%+v", row.TrialsDetail[0], prev.Scenarios[0].TrialsDetail[0])
	}

	// A report of the scenario's earlier content (another digest) is
	// reused for nothing: every trial runs again.
	prev.Scenarios[0].Digest = "0123456789abcdef"
	trials.Store(0)
	if _, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
		Models: []string{"test/m"}, Open: opener(map[string]llm.Model{"test/m": counting(writer("hello\nworld\n", "done"), &trials, nil)}),
		Trials: 3, Parallel: 2, Resume: prev, Clock: clock.NewVirtual(clock.Epoch),
	}); err != nil {
		t.Fatal(err)
	}
	if trials.Load() != 3 {
		t.Errorf("a changed scenario: %d trials ran, want all 3", trials.Load())
	}
}
