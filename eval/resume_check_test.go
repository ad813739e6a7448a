package eval

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

// TestResumeOfAnotherRunIsRefused: a report of other models, other
// scenarios or more trials is refused with the reason, before any model is
// opened (issue 21).
func TestResumeOfAnotherRunIsRefused(t *testing.T) {
	s := &scenario.Scenario{Name: "a", Expect: &scenario.Expect{}}
	prev := func(model, name string, trials int) *report.Eval {
		r := &report.Eval{Models: []report.EvalModel{{Name: model}}, Scenarios: []report.EvalScenario{{Name: name, Model: model}}}
		r.Summary.TrialsPerScenario = trials
		return r
	}
	for _, tc := range []struct {
		resume *report.Eval
		want   string
	}{
		{prev("test/other", "a", 2), "the report ran the models test/other, this run test/m"},
		{prev("test/m", "b", 2), `the report ran scenario "b", which this run does not`},
		{prev("test/m", "a", 5), "the report ran 5 trials per scenario, this run only 2"},
	} {
		_, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{Models: []string{"test/m"}, Trials: 2, Resume: tc.resume,
			Open: opener(nil)})
		if !errors.Is(err, ErrResume) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want ErrResume: %s", err, tc.want)
		}
	}
	// A scenario this run adds is refused too: the report is of another run.
	added := &scenario.Scenario{Name: "z", Expect: &scenario.Expect{}}
	_, err := Run(context.Background(), []*scenario.Scenario{s, added}, &Options{Models: []string{"test/m"}, Trials: 2, Resume: prev("test/m", "a", 2),
		Open: opener(nil)})
	if want := `this run has scenario "z", which the report did not run`; !errors.Is(err, ErrResume) || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want ErrResume: %s", err, want)
	}
}
