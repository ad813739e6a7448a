package eval

import (
	"cmp"
	"slices"

	"github.com/tapeloop/tapeloop/report"
)

// Compare compares model b with model a over the scenarios both ran with at
// least one scored trial, in the report r: the difference in mean pass rate
// (b - a) with a 95% hierarchical bootstrap interval (scenarios, then trials
// within each) with a fixed seed. With no shared scenario the comparison is
// over zero scenarios.
func Compare(r *report.Eval, a, b string) *report.EvalComparison {
	return comparison(a, b, pairRates(r, a, r, b))
}

// CompareReports compares the model of report b with the model of report a
// (a baseline run and a later one) over their shared scenarios, like
// Compare.
func CompareReports(a, b *report.Eval, modelA, modelB string) *report.EvalComparison {
	return comparison(modelA, modelB, pairRates(a, modelA, b, modelB))
}

type ratePair struct {
	name string
	a, b *report.EvalScenario
}

func pairRates(ra *report.Eval, a string, rb *report.Eval, b string) []ratePair {
	rowsB := map[string]*report.EvalScenario{}
	for i := range rb.Scenarios {
		if s := &rb.Scenarios[i]; s.Model == b && s.Trials > 0 {
			rowsB[s.Name] = s
		}
	}
	var out []ratePair
	for i := range ra.Scenarios {
		s := &ra.Scenarios[i]
		if s.Model != a || s.Trials == 0 {
			continue
		}
		if t, ok := rowsB[s.Name]; ok {
			out = append(out, ratePair{name: s.Name, a: s, b: t})
		}
	}
	slices.SortFunc(out, func(x, y ratePair) int { return cmp.Compare(x.name, y.name) })
	return out
}

func comparison(a, b string, pairs []ratePair) *report.EvalComparison {
	c := &report.EvalComparison{A: a, B: b, Scenarios: len(pairs), Method: report.MethodHierarchicalBootstrap,
		Confidence: comparisonConfidence, Resamples: comparisonResamples, Seed: comparisonSeed}
	if len(pairs) == 0 {
		return c
	}
	xa, xb := make([]Counts, len(pairs)), make([]Counts, len(pairs))
	for i, p := range pairs {
		xa[i] = Counts{Passed: p.a.Passed, Trials: p.a.Trials}
		xb[i] = Counts{Passed: p.b.Passed, Trials: p.b.Trials}
		c.PassRateA += xa[i].rate()
		c.PassRateB += xb[i].rate()
		c.TrialsA += p.a.Trials
		c.TrialsB += p.b.Trials
	}
	c.PassRateA /= float64(len(pairs))
	c.PassRateB /= float64(len(pairs))
	bs := HierarchicalBootstrap(xa, xb, comparisonResamples, comparisonConfidence, comparisonSeed)
	c.Difference, c.Low, c.High = bs.Difference, bs.Low, bs.High
	c.Better = betterOf(c.Low, c.High)
	return c
}

// betterOf names the run an interval [low, high] of b - a favours: "b" when
// it lies wholly above zero, "a" wholly below, "" when it holds zero (an end
// exactly at zero included).
func betterOf(low, high float64) string {
	switch {
	case low > 0:
		return "b"
	case high < 0:
		return "a"
	}
	return ""
}

func rate(s *report.EvalScenario) float64 {
	return Counts{Passed: s.Passed, Trials: s.Trials}.rate()
}
