package eval

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/tapeloop/tapeloop/report"
)

// WriteText writes the report for people: one row per scenario with each
// model's passed/scored trials and class (side by side for several models,
// marking rows where the classes differ), the failed expectations with how
// often, one row per model with its aggregates, and for two models the
// paired comparison.
func WriteText(w io.Writer, r *report.Eval) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	models := modelNames(r)
	fmt.Fprintf(tw, "scenario\t%s\n", strings.Join(models, "\t"))
	byName := map[string]map[string]*report.EvalScenario{}
	var names []string
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		if byName[s.Name] == nil {
			byName[s.Name] = map[string]*report.EvalScenario{}
			names = append(names, s.Name)
		}
		byName[s.Name][s.Model] = s
	}
	for _, name := range names {
		cells := make([]string, len(models))
		classes := map[string]bool{}
		for i, m := range models {
			s := byName[name][m]
			if s == nil {
				cells[i] = "-"
				continue
			}
			cells[i] = cell(s)
			classes[s.Class] = true
		}
		row := name + "\t" + strings.Join(cells, "\t")
		if len(models) > 1 && len(classes) > 1 {
			row += "\tdiffers"
		}
		fmt.Fprintln(tw, row)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, name := range names {
		for _, m := range models {
			s := byName[name][m]
			if s == nil || len(s.Failures) == 0 {
				continue
			}
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(s.Failures)) {
				parts = append(parts, fmt.Sprintf("%s %d/%d", k, s.Failures[k], s.Trials))
			}
			fmt.Fprintf(w, "  %s (%s) failed: %s\n", name, m, strings.Join(parts, ", "))
		}
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "model\tpassed\tpass@1\tpass^k\terrors\ttokens in/out/cached\tcost\tlatency p50/p95\twall")
	for _, m := range r.Models {
		k := len(m.PassHatK)
		cost := "-"
		if m.Cost != nil {
			cost = fmt.Sprintf("$%.4f", *m.Cost)
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%.2f\tpass^%d %.2f\t%d\t%d/%d/%d\t%s\t%.0f/%.0f ms\t%.1fs\n",
			m.Name, m.Passed, m.Trials, m.PassAtK[1], k, m.PassHatK[k], m.Errors,
			m.Tokens.Input, m.Tokens.Output, m.Tokens.Cached, cost, m.LatencyMS.P50, m.LatencyMS.P95, m.WallMS/1000)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if c := r.Summary.Comparison; c != nil {
		fmt.Fprintln(w, comparisonLine(c))
	}
	s := r.Summary
	fmt.Fprintf(w, "%d passed, %d failed, %d errors (left out of pass@k)", s.Passed, s.Failed, s.Errors)
	if s.NotRun > 0 {
		fmt.Fprintf(w, ", %d not run", s.NotRun)
	}
	switch s.Stopped {
	case report.StoppedMaxCost:
		fmt.Fprintf(w, " (stopped: --max-cost $%g reached)", *s.MaxCost)
	case report.StoppedInterrupted:
		fmt.Fprint(w, " (interrupted)")
	}
	_, err := fmt.Fprintln(w)
	return err
}

func cell(s *report.EvalScenario) string {
	c := fmt.Sprintf("%d/%d %s", s.Passed, s.Trials, s.Class)
	if s.Errors > 0 {
		c += fmt.Sprintf(" (+%d err)", s.Errors)
	}
	return c
}

func modelNames(r *report.Eval) []string {
	names := make([]string, len(r.Models))
	for i, m := range r.Models {
		names[i] = m.Name
	}
	return names
}

func comparisonLine(c *report.EvalComparison) string {
	verdict := "the data cannot tell them apart"
	switch c.Better {
	case "a":
		verdict = c.A + " is better"
	case "b":
		verdict = c.B + " is better"
	}
	return fmt.Sprintf("%s - %s: pass rate %+.3f, %.0f%% CI [%+.3f, %+.3f] over %d shared scenarios (paired bootstrap, %d resamples, seed %d): %s",
		c.B, c.A, c.Difference, 100*c.Confidence, c.Low, c.High, c.Scenarios, c.Resamples, c.Seed, verdict)
}

// Change is one scenario's change between a baseline and a later report.
type Change struct {
	Name string
	// A and B are the scenario's rows in the baseline and the later report;
	// nil when the scenario is only in the other.
	A, B *report.EvalScenario
	// Delta is B's pass rate minus A's; 0 when either is missing.
	Delta float64
}

// Regressed reports whether the later report does worse on the scenario.
func (c Change) Regressed() bool { return c.A != nil && c.B != nil && c.Delta < 0 }

// Diff lists the changes from model ma in report a to model mb in report b,
// per scenario: regressions first (largest drop first), then improvements
// (largest gain first), then unchanged, removed and added scenarios, each
// group by name.
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
		c := Change{Name: name, A: sa, B: rb[name]}
		if c.B != nil {
			c.Delta = rate(c.B) - rate(c.A)
		}
		out = append(out, c)
	}
	for name, sb := range rb {
		if ra[name] == nil {
			out = append(out, Change{Name: name, B: sb})
		}
	}
	group := func(c Change) int {
		switch {
		case c.Regressed():
			return 0
		case c.A != nil && c.B != nil && c.Delta > 0:
			return 1
		case c.A != nil && c.B != nil:
			return 2
		case c.B == nil:
			return 3
		}
		return 4
	}
	slices.SortFunc(out, func(x, y Change) int {
		if g := cmp.Compare(group(x), group(y)); g != 0 {
			return g
		}
		switch group(x) {
		case 0:
			if d := cmp.Compare(x.Delta, y.Delta); d != 0 {
				return d
			}
		case 1:
			if d := cmp.Compare(y.Delta, x.Delta); d != 0 {
				return d
			}
		}
		return cmp.Compare(x.Name, y.Name)
	})
	return out
}

// WriteDiff writes the changes from Diff and the paired comparison, for
// people: regressions first.
func WriteDiff(w io.Writer, changes []Change, c *report.EvalComparison) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "change\tscenario\t%s\t%s\n", c.A, c.B)
	for _, ch := range changes {
		what := "same"
		switch {
		case ch.Regressed():
			what = "REGRESSED"
		case ch.A != nil && ch.B != nil && ch.Delta > 0:
			what = "improved"
		case ch.B == nil:
			what = "removed"
		case ch.A == nil:
			what = "added"
		}
		ca, cb := "-", "-"
		if ch.A != nil {
			ca = cell(ch.A)
		}
		if ch.B != nil {
			cb = cell(ch.B)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", what, ch.Name, ca, cb)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, comparisonLine(c))
	return err
}
