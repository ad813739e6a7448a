package eval

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

// TestCustomChecksScoreTrials: a check of the user's own scores live
// trials like any expectation: pass@k counts it, failures are counted under
// check[NAME] with its message, and without the check registered every
// trial fails rather than passes.
func TestCustomChecksScoreTrials(t *testing.T) {
	text := strings.Replace(appendScenario, "  final: {contains: \"done\"}\n", "  check: {name: wrote_lines, with: {lines: 2}}\n", 1)
	s := parse(t, text, "files/append")
	type lines struct {
		Lines int `yaml:"lines" fixture:"required"`
	}
	wroteLines := harness.NewChecker("wrote_lines", "notes.txt holds with.lines lines", func(o *harness.Outcome, with lines) error {
		for _, f := range o.Workspace {
			if f.Path == "notes.txt" && strings.Count(f.Content, "\n") == with.Lines {
				return nil
			}
		}
		return fmt.Errorf("notes.txt does not hold %d lines", with.Lines)
	})
	run := func(checks ...*harness.Checker) *scenarioRows {
		r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
			Models: []string{"test/right", "test/short"},
			Open:   opener(map[string]llm.Model{"test/right": writer("hello\nworld\n", "done"), "test/short": writer("hello\nworld", "done")}),
			Trials: 2, Checks: checks, Clock: clock.NewVirtual(clock.Epoch),
		})
		if err != nil {
			t.Fatal(err)
		}
		return &scenarioRows{passed: [2]int{r.Scenarios[0].Passed, r.Scenarios[1].Passed}, failures: r.Scenarios[1].Failures,
			first: r.Scenarios[1].TrialsDetail[0].Failures, passAt1: r.Scenarios[0].PassAtK[1]}
	}
	got := run(wroteLines)
	if got.passed != [2]int{2, 0} || got.passAt1 != 1 {
		t.Errorf("passed %v, pass@1 %v; want right 2/2 (pass@1 1), short 0/2", got.passed, got.passAt1)
	}
	// The file text has no final newline: "hello\nworld" is one line, and files: also fails.
	if want := map[string]int{"check[wrote_lines]": 2, "files[notes.txt]": 2}; !reflect.DeepEqual(got.failures, want) {
		t.Errorf("failures %v; want %v", got.failures, want)
	}
	if want := "files/append.yaml:14: expect.check[wrote_lines]: notes.txt does not hold 2 lines"; len(got.first) != 2 || got.first[1] != want {
		t.Errorf("trial failures %q; want the second to be %q", got.first, want)
	}
	if unregistered := run(); unregistered.passed != [2]int{0, 0} {
		t.Errorf("without the check registered: passed %v; want no trial to pass", unregistered.passed)
	}
}

// scenarioRows is what TestCustomChecksScoreTrials reads of a report.
type scenarioRows struct {
	passed   [2]int
	failures map[string]int
	first    []string
	passAt1  float64
}
