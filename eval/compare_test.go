package eval

import (
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/report"
)

func row(name, model string, c, n int) report.EvalScenario {
	return report.EvalScenario{Name: name, Model: model, Passed: c, Trials: n, Class: Class(n, c)}
}

// TestDiffOrder: significant regressions first, largest drop first; then
// significant improvements, largest gain first; then changes the trials
// cannot confirm (drops, then gains); then unchanged, removed and added, by
// name.
func TestDiffOrder(t *testing.T) {
	a := &report.Eval{Scenarios: []report.EvalScenario{
		row("same", "m", 2, 4), row("small-drop", "m", 4, 4), row("big-drop", "m", 10, 10), row("drop", "m", 10, 10),
		row("gain", "m", 0, 4), row("big-gain", "m", 0, 10), row("gone", "m", 1, 1), row("other-model", "x", 0, 1),
	}}
	b := &report.Eval{Scenarios: []report.EvalScenario{
		row("same", "n", 2, 4), row("small-drop", "n", 3, 4), row("big-drop", "n", 0, 10), row("drop", "n", 1, 10),
		row("gain", "n", 1, 4), row("big-gain", "n", 10, 10), row("new", "n", 1, 1),
	}}
	var got []string
	changes := Diff(a, b, "m", "n")
	for _, c := range changes {
		got = append(got, c.Name)
	}
	want := "big-drop drop big-gain small-drop gain same gone new"
	if strings.Join(got, " ") != want {
		t.Errorf("order %v; want %s", got, want)
	}
	// big-drop 10/10 to 0/10: C(20,10) = 184756 tables, only x=10 and x=0
	// as unlikely as the observed: p = 2/184756, times 6 tested scenarios
	// (Holm, the smallest p-value).
	if c := changes[0]; !near(c.P, 2.0/184756) || !near(c.PAdjusted, 6*2.0/184756) || !c.Regressed() || c.TrialsToDetect != 0 {
		t.Errorf("big-drop: %+v", c)
	}
	// small-drop 4/4 to 3/4 is not significant; TrialsToDetect(1, 0.75).
	if c := changes[3]; c.Significant || c.Regressed() || c.TrialsToDetect != TrialsToDetect(1, 0.75) || c.TrialsToDetect == 0 {
		t.Errorf("small-drop: %+v", c)
	}
	if c := changes[6]; c.Name != "gone" || c.P != 1 || c.PAdjusted != 1 || c.Significant {
		t.Errorf("gone: %+v", c)
	}
	c := CompareReports(a, b, "m", "n")
	// Shared scored scenarios: same, small-drop, big-drop, drop, gain,
	// big-gain; rates a = .5 1 1 1 0 0, b = .5 .75 0 .1 .25 1.
	if c.Scenarios != 6 || c.TrialsA != 42 || c.TrialsB != 42 || !near(c.PassRateA, 3.5/6) || !near(c.PassRateB, 2.6/6) ||
		!near(c.Difference, -0.9/6) || c.Method != report.MethodHierarchicalBootstrap || c.Better != "" {
		t.Errorf("comparison %+v", c)
	}
}

// TestBetterOf: an interval with an end exactly at zero favours neither run.
func TestBetterOf(t *testing.T) {
	for _, tc := range []struct {
		low, high float64
		want      string
	}{
		{0.01, 0.3, "b"}, {-0.3, -0.01, "a"},
		{0, 0.3, ""}, {-0.3, 0, ""}, {0, 0, ""}, {-0.1, 0.1, ""},
	} {
		if got := betterOf(tc.low, tc.high); got != tc.want {
			t.Errorf("betterOf(%v, %v) = %q, want %q", tc.low, tc.high, got, tc.want)
		}
	}
}

// TestCompareSkipsZeroTrialRows: a row with zero trials, on either side, is
// neither paired nor counted.
func TestCompareSkipsZeroTrialRows(t *testing.T) {
	var a, b report.Eval
	for i := range 10 {
		name := string(rune('a' + i))
		passed := 0
		if i == 0 {
			passed = 1
		}
		a.Scenarios = append(a.Scenarios, row(name, "m", 0, 1))
		b.Scenarios = append(b.Scenarios, row(name, "n", passed, 1))
	}
	// Rows with zero trials: in a only, in b only, in both.
	a.Scenarios = append(a.Scenarios, row("za", "m", 0, 0), row("zb", "m", 1, 1), row("zz", "m", 0, 0))
	b.Scenarios = append(b.Scenarios, row("za", "n", 1, 1), row("zb", "n", 0, 0), row("zz", "n", 0, 0))
	if c := CompareReports(&a, &b, "m", "n"); c.Scenarios != 10 || !near(c.PassRateA, 0) || !near(c.PassRateB, 0.1) {
		t.Errorf("CompareReports: %+v, want the 10 scored scenarios, pass rates 0 and 0.1", c)
	}
	r := &report.Eval{Scenarios: append(slices.Clone(a.Scenarios), b.Scenarios...)}
	if c := Compare(r, "m", "n"); c.Scenarios != 10 || !near(c.PassRateA, 0) || !near(c.PassRateB, 0.1) {
		t.Errorf("Compare: %+v, want the 10 scored scenarios, pass rates 0 and 0.1", c)
	}
}

// TestDiffTiesByName: scenarios in the same group with the same change are
// listed by name, the same on every run, whatever the reports' order.
func TestDiffTiesByName(t *testing.T) {
	names := []string{"h", "c", "a", "g", "e", "b", "f", "d"}
	a, b := &report.Eval{}, &report.Eval{}
	for _, n := range names {
		a.Scenarios = append(a.Scenarios, row("same-"+n, "m", 1, 2), row("drop-"+n, "m", 2, 2), row("gone-"+n, "m", 1, 1))
		b.Scenarios = append(b.Scenarios, row("same-"+n, "n", 1, 2), row("drop-"+n, "n", 1, 2), row("new-"+n, "n", 1, 1))
	}
	sorted := slices.Sorted(slices.Values(names))
	var want []string
	for _, group := range []string{"drop-", "same-", "gone-", "new-"} {
		for _, n := range sorted {
			want = append(want, group+n)
		}
	}
	for range 5 {
		var got []string
		for _, c := range Diff(a, b, "m", "n") {
			got = append(got, c.Name)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("order %v; want %v", got, want)
		}
	}
}

// Within each group of Diff's order, the larger change comes first whatever
// the names: regressions by drop, improvements by gain, and the changes the
// trials cannot confirm drops first, then gains, each largest first.
func TestDiffOrderWithinGroups(t *testing.T) {
	a := &report.Eval{Scenarios: []report.EvalScenario{
		row("a-regressed-less", "m", 10, 10), row("b-regressed-more", "m", 10, 10),
		row("c-improved-less", "m", 0, 10), row("d-improved-more", "m", 0, 10),
		row("e-dropped-less", "m", 4, 4), row("f-dropped-more", "m", 4, 4),
		row("g-gained-less", "m", 0, 4), row("h-gained-more", "m", 0, 4),
	}}
	b := &report.Eval{Scenarios: []report.EvalScenario{
		row("a-regressed-less", "n", 3, 10), row("b-regressed-more", "n", 0, 10),
		row("c-improved-less", "n", 7, 10), row("d-improved-more", "n", 10, 10),
		row("e-dropped-less", "n", 3, 4), row("f-dropped-more", "n", 2, 4),
		row("g-gained-less", "n", 1, 4), row("h-gained-more", "n", 2, 4),
	}}
	var got []string
	for _, c := range Diff(a, b, "m", "n") {
		got = append(got, c.Name)
	}
	want := "b-regressed-more a-regressed-less d-improved-more c-improved-less f-dropped-more e-dropped-less h-gained-more g-gained-less"
	if strings.Join(got, " ") != want {
		t.Errorf("order %v\nwant  %s", got, want)
	}
}

// A change of zero is neither a regression nor an improvement, whatever its
// p-value.
func TestChangeOfZeroIsNeither(t *testing.T) {
	c := Change{Name: "same", Delta: 0, P: 0.001, PAdjusted: 0.001, Significant: true}
	if c.Regressed() || c.Improved() {
		t.Errorf("%+v: regressed %v, improved %v; want neither", c, c.Regressed(), c.Improved())
	}
}

// Holm's correction counts only the scenarios scored in both reports: a
// scenario whose trials all errored on one side (0 scored) does not raise
// the others' adjusted p-values.
func TestDiffHolmFamilyIsTheScoredScenarios(t *testing.T) {
	for side, errored := range map[string][2]report.EvalScenario{
		"baseline": {row("errored", "m", 0, 0), row("errored", "n", 2, 3)},
		"later":    {row("errored", "m", 2, 3), row("errored", "n", 0, 0)},
	} {
		a := &report.Eval{Scenarios: []report.EvalScenario{row("drop", "m", 10, 10), errored[0]}}
		b := &report.Eval{Scenarios: []report.EvalScenario{row("drop", "n", 0, 10), errored[1]}}
		changes := Diff(a, b, "m", "n")
		i := slices.IndexFunc(changes, func(c Change) bool { return c.Name == "drop" })
		if c := changes[i]; !near(c.PAdjusted, c.P) || !near(c.P, 2.0/184756) {
			t.Errorf("0 scored trials in the %s: drop's p %v adjusted to %v, want it unadjusted (a family of one)", side, c.P, c.PAdjusted)
		}
	}
}

// Significance is strict: an adjusted p-value of exactly 0.05 (0 of 2 passed
// against 19 of 23: Fisher's p is 0.05) is not a significant change.
func TestDiffSignificanceIsStrict(t *testing.T) {
	a := &report.Eval{Scenarios: []report.EvalScenario{row("edge", "m", 0, 2)}}
	b := &report.Eval{Scenarios: []report.EvalScenario{row("edge", "n", 19, 23)}}
	c := Diff(a, b, "m", "n")[0]
	if c.PAdjusted != Significance || c.Significant || c.Improved() {
		t.Errorf("%+v: want p = %v exactly and not significant", c, Significance)
	}
}
