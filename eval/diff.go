package eval

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"github.com/tapeloop/tapeloop/report"
)

// Change is one scenario's change between a baseline and a later report.
type Change struct {
	Name string
	// A and B are the scenario's rows in the baseline and the later report;
	// nil when the scenario is only in the other.
	A, B *report.EvalScenario
	// Delta is B's pass rate minus A's; 0 when either is missing.
	Delta float64
	// P is the two-sided p-value of Fisher's exact test on the two rows'
	// trials (FisherExact), and PAdjusted the same after Holm's correction
	// over the scenarios scored in both reports (Holm); both 1 when either
	// row is missing or has no scored trial.
	P, PAdjusted float64
	// Significant reports whether PAdjusted is below Significance: the
	// trials show a real change, not chance.
	Significant bool
	// TrialsToDetect is, for a change that is not significant, the trials
	// per run that would find a difference of this size with 80% power
	// (TrialsToDetect of the two pass rates); 0 otherwise.
	TrialsToDetect int
}

// Regressed reports whether the later report does significantly worse on
// the scenario.
func (c Change) Regressed() bool { return c.Delta < 0 && c.Significant }

// Improved reports whether the later report does significantly better on
// the scenario.
func (c Change) Improved() bool { return c.Delta > 0 && c.Significant }

// both reports whether the scenario is in both reports.
func (c Change) both() bool { return c.A != nil && c.B != nil }

// group orders the changes: significant regressions, significant
// improvements, changes the data cannot confirm, unchanged, removed, added.
func (c Change) group() int {
	switch {
	case c.Regressed():
		return 0
	case c.Improved():
		return 1
	case c.both() && c.Delta != 0:
		return 2
	case c.both():
		return 3
	case c.B == nil:
		return 4
	}
	return 5
}

// Diff lists the changes from model ma in report a to model mb in report b,
// per scenario, each tested with Fisher's exact test (Holm-corrected over
// the scenarios): significant regressions first (largest drop first), then
// significant improvements (largest gain first), then changes that are not
// significant (drops, then gains, each largest first), unchanged, removed and added scenarios,
// each group by name.
func Diff(a, b *report.Eval, ma, mb string) []Change {
	rows := func(r *report.Eval, m string) map[string]*report.EvalScenario {
		out := map[string]*report.EvalScenario{}
		for i := range r.Scenarios {
			if r.Scenarios[i].Model == m {
				out[r.Scenarios[i].Name] = &r.Scenarios[i]
			}
		}
		return out
	}
	ra, rb := rows(a, ma), rows(b, mb)
	var out []Change
	for name, sa := range ra {
		c := Change{Name: name, A: sa, B: rb[name], P: 1}
		if c.B != nil {
			c.Delta = rate(c.B) - rate(c.A)
			c.P = FisherExact(c.A.Passed, c.A.Trials, c.B.Passed, c.B.Trials)
		}
		out = append(out, c)
	}
	for name, sb := range rb {
		if ra[name] == nil {
			out = append(out, Change{Name: name, B: sb, P: 1})
		}
	}
	// Sort by name first, so that Holm's ties and the groups below do
	// not depend on map order.
	slices.SortFunc(out, func(x, y Change) int { return cmp.Compare(x.Name, y.Name) })
	// The family Holm corrects for: the scenarios scored in both runs.
	var tested []int
	var ps []float64
	for i, c := range out {
		out[i].PAdjusted = 1
		if c.both() && c.A.Trials > 0 && c.B.Trials > 0 {
			tested = append(tested, i)
			ps = append(ps, c.P)
		}
	}
	for j, p := range Holm(ps) {
		c := &out[tested[j]]
		c.PAdjusted = p
		c.Significant = significant(p)
		if !c.Significant && c.Delta != 0 {
			c.TrialsToDetect = TrialsToDetect(rate(c.A), rate(c.B))
		}
	}
	slices.SortStableFunc(out, func(x, y Change) int {
		if g := cmp.Compare(x.group(), y.group()); g != 0 {
			return g
		}
		// Drops before gains, each largest first.
		if d := cmp.Compare(sign(x.Delta), sign(y.Delta)); d != 0 {
			return d
		}
		if x.Delta < 0 {
			return cmp.Compare(x.Delta, y.Delta)
		}
		return cmp.Compare(y.Delta, x.Delta)
	})
	return out
}

// DiffText says how WriteDiff labels its output and what it sizes.
type DiffText struct {
	// LabelA and LabelB name the two runs in the table's header and the
	// comparison line (the file names, when both runs are of the same
	// model); "" uses the comparison's model names.
	LabelA, LabelB string
	// Drop is the drop in one scenario's pass rate that the closing line
	// says how many trials would detect; 0 leaves the line out.
	Drop float64
}

// WriteDiff writes the changes from Diff and the comparison over the suite,
// for people: regressions first, each change with its p-value, and for a
// change the data cannot confirm the trials that would.
func WriteDiff(w io.Writer, changes []Change, c *report.EvalComparison, opts DiffText) error {
	// Names come from the reports: printed with their control characters
	// escaped, so a hostile name cannot rewrite the terminal.
	la, lb := report.Printable(cmp.Or(opts.LabelA, c.A)), report.Printable(cmp.Or(opts.LabelB, c.B))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "change\tscenario\t%s\t%s\tp\n", la, lb)
	for _, ch := range changes {
		what, p := "same", "-"
		switch ch.group() {
		case 0:
			what = "REGRESSED"
		case 1:
			what = "improved"
		case 2:
			what = "not significant"
		case 4:
			what = "removed"
		case 5:
			what = "added"
		}
		if ch.both() {
			p = fmt.Sprintf("%.3g", ch.PAdjusted)
			if ch.TrialsToDetect > 0 {
				p += fmt.Sprintf(" (%d trials per run would detect a change of %.2f)", ch.TrialsToDetect, math.Abs(ch.Delta))
			}
		}
		ca, cb := "-", "-"
		if ch.A != nil {
			ca = cell(ch.A)
		}
		if ch.B != nil {
			cb = cell(ch.B)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", what, report.Printable(ch.Name), ca, cb, p)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	significant := 0
	for _, ch := range changes {
		if ch.Significant {
			significant++
		}
	}
	if significant == 0 {
		fmt.Fprintln(w, "no significant change in any scenario (Fisher's exact test, Holm-corrected, p < 0.05)")
	}
	if _, err := fmt.Fprintln(w, comparisonLine(c, la, lb)); err != nil {
		return err
	}
	if d := Sizing(changes, c, opts.Drop); d != nil {
		if d.ScenarioTrials > 0 {
			if _, err := fmt.Fprintf(w, "a drop of %.2f in a scenario passing at %.2f (%s's mean) needs %d trials per run to detect (80%% power, p < 0.05)\n", d.Drop, d.PassRate, la, d.ScenarioTrials); err != nil {
				return err
			}
		}
		suite := "is out of reach of the suite's test at any number of trials (the scenarios' drops vary too much)"
		if d.SuiteTrials > 0 {
			suite = fmt.Sprintf("needs %d trials per scenario and run for the suite's test to detect (80%% power, 95%% interval)", d.SuiteTrials)
		}
		_, err := fmt.Fprintf(w, "a drop of %.2f in the suite's mean pass rate (each scenario losing the same share) %s\n", d.Drop, suite)
		return err
	}
	return nil
}

// comparisonLine is the suite's comparison in one line, the runs named la
// and lb.
func comparisonLine(c *report.EvalComparison, la, lb string) string {
	verdict := "no significant change"
	switch c.Better {
	case "a":
		verdict = fmt.Sprintf("%s is worse than %s", lb, la)
	case "b":
		verdict = fmt.Sprintf("%s is better than %s", lb, la)
	}
	return fmt.Sprintf("%s - %s: pass rate %+.3f, %.0f%% CI [%+.3f, %+.3f] over %d shared scenarios, %d and %d trials (hierarchical bootstrap, %d resamples, seed %d): %s",
		lb, la, c.Difference, 100*c.Confidence, c.Low, c.High, c.Scenarios, c.TrialsA, c.TrialsB, c.Resamples, c.Seed, verdict)
}

func sign(x float64) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}
