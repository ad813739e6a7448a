package eval

import (
	"maps"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

// A model's pass@k and pass^k average the rows that scored trials, for k up
// to the fewest trials such a row has; its counts add up the rows.
func TestBuildAggregatesRowsOfUnequalTrials(t *testing.T) {
	trial := func(status string, latencies ...float64) *report.EvalTrial {
		tr := &report.EvalTrial{Status: status, Passed: status == report.StatusPass}
		for _, l := range latencies {
			tr.Tape = append(tr.Tape, report.EvalTapeEntry{LatencyMS: l})
		}
		return tr
	}
	failedCall := trial(report.StatusPass, 100)
	failedCall.Tape = append(failedCall.Tape, report.EvalTapeEntry{Error: "502 Bad Gateway", LatencyMS: 9999})
	r := &runner{opts: &Options{Models: []string{"m"}, Trials: 3}, results: map[slot]*report.EvalTrial{
		// a: 3 scored trials, 2 passed; one call failed (its latency is not counted).
		{0, "m", 1}: failedCall, {0, "m", 2}: trial(report.StatusPass, 100), {0, "m", 3}: trial(report.StatusFail, 100),
		// b: 2 scored trials, 1 passed, one not run.
		{1, "m", 1}: trial(report.StatusPass, 100), {1, "m", 2}: trial(report.StatusFail, 100),
		// c: errors only, no scored trial.
		{2, "m", 1}: trial(report.StatusError), {2, "m", 2}: trial(report.StatusError), {2, "m", 3}: trial(report.StatusError),
	}}
	out := r.build([]*scenario.Scenario{{Name: "a"}, {Name: "b"}, {Name: "c"}}, time.Second)
	em := out.Models[0]
	if em.Trials != 5 || em.Passed != 3 || em.Errors != 3 || em.NotRun != 1 || em.ModelCalls != 6 {
		t.Errorf("trials, passed, errors, not run, calls = %d, %d, %d, %d, %d; want 5, 3, 3, 1, 6",
			em.Trials, em.Passed, em.Errors, em.NotRun, em.ModelCalls)
	}
	if want := map[string]int{report.ClassFlaky: 2, report.ClassError: 1}; !maps.Equal(em.Classes, want) {
		t.Errorf("classes = %v, want %v", em.Classes, want)
	}
	// a: pass@1 2/3, pass@2 1, pass^1 2/3, pass^2 1/3; b: 1/2, 1, 1/2, 0.
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if len(em.PassAtK) != 2 || !near(em.PassAtK[1], 7.0/12) || !near(em.PassAtK[2], 1) {
		t.Errorf("pass@k = %v, want {1: 7/12, 2: 1}", em.PassAtK)
	}
	if len(em.PassHatK) != 2 || !near(em.PassHatK[1], 7.0/12) || !near(em.PassHatK[2], 1.0/6) {
		t.Errorf("pass^k = %v, want {1: 7/12, 2: 1/6}", em.PassHatK)
	}
	if !near(em.PassRate, 3.0/5) {
		t.Errorf("pass rate = %v, want 3/5", em.PassRate)
	}
	if em.LatencyMS.P95 != 100 {
		t.Errorf("latency p95 = %v, want 100 (the failed call left out)", em.LatencyMS.P95)
	}
	if s := out.Summary; s.Trials != 5 || s.Passed != 3 || s.Failed != 2 || s.Errors != 3 || s.NotRun != 1 || s.MaxCost != nil {
		t.Errorf("summary = %+v; want 5 trials, 3 passed, 2 failed, 3 errors, 1 not run, no max cost", s)
	}
}

// A model none of whose trials was scored has a pass rate of 0, not NaN, and
// does not meet the minimum.
func TestBuildModelWithoutScoredTrials(t *testing.T) {
	r := &runner{opts: &Options{Models: []string{"m"}, Trials: 2}, results: map[slot]*report.EvalTrial{
		{0, "m", 1}: {Status: report.StatusError}, {0, "m", 2}: {Status: report.StatusError},
	}}
	em := r.build([]*scenario.Scenario{{Name: "a"}}, time.Second).Models[0]
	if em.PassRate != 0 || em.MeetsMinPass || len(em.PassAtK) != 0 {
		t.Errorf("pass rate %v, meets min pass %v, pass@k %v; want 0, false, none", em.PassRate, em.MeetsMinPass, em.PassAtK)
	}
}
