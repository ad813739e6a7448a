package eval

import (
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/report"
)

func row(name, model string, c, n int) report.EvalScenario {
	return report.EvalScenario{Name: name, Model: model, Passed: c, Trials: n, Class: Class(n, c)}
}

// TestDiffOrder: regressions first, largest drop first; then improvements,
// largest gain first; then unchanged, removed and added, by name.
func TestDiffOrder(t *testing.T) {
	a := &report.Eval{Scenarios: []report.EvalScenario{
		row("same", "m", 2, 4), row("small-drop", "m", 4, 4), row("big-drop", "m", 4, 4),
		row("gain", "m", 0, 4), row("big-gain", "m", 0, 4), row("gone", "m", 1, 1), row("other-model", "x", 0, 1),
	}}
	b := &report.Eval{Scenarios: []report.EvalScenario{
		row("same", "n", 2, 4), row("small-drop", "n", 3, 4), row("big-drop", "n", 0, 4),
		row("gain", "n", 1, 4), row("big-gain", "n", 4, 4), row("new", "n", 1, 1),
	}}
	var got []string
	for _, c := range Diff(a, b, "m", "n") {
		got = append(got, c.Name)
	}
	want := "big-drop small-drop big-gain gain same gone new"
	if strings.Join(got, " ") != want {
		t.Errorf("order %v; want %s", got, want)
	}
	c := CompareReports(a, b, "m", "n")
	// Shared scored scenarios: same, small-drop, big-drop, gain, big-gain;
	// rates a = .5 1 1 0 0, b = .5 .75 0 .25 1.
	if c.Scenarios != 5 || !near(c.PassRateA, 0.5) || !near(c.PassRateB, 0.5) || !near(c.Difference, 0) || c.Better != "" {
		t.Errorf("comparison %+v", c)
	}
}
