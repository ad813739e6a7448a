package eval

import (
	"cmp"

	"github.com/tapeloop/tapeloop/report"
)

// Sizing is the trials that would detect a drop of drop in pass rate from
// the baseline's mean over the shared scenarios (c.PassRateA): in one
// scenario, by Fisher's exact test (TrialsToDetect), and over the suite,
// by the hierarchical bootstrap (SuiteTrialsToDetect over the baseline's
// pass rates of the scenarios both runs scored). It is nil when drop is 0
// or no scenario is shared.
func Sizing(changes []Change, c *report.EvalComparison, drop float64) *report.CompareDetect {
	if drop <= 0 || c.Scenarios == 0 {
		return nil
	}
	var rates []float64
	for _, ch := range changes {
		if ch.both() && ch.A.Trials > 0 && ch.B.Trials > 0 {
			rates = append(rates, rate(ch.A))
		}
	}
	from := c.PassRateA
	return &report.CompareDetect{
		Drop: drop, Power: detectPower, Alpha: Significance, PassRate: from,
		ScenarioTrials: TrialsToDetect(from, max(from-drop, 0)),
		SuiteTrials:    SuiteTrialsToDetect(rates, drop),
	}
}

// NewCompare is the comparison document (report.Compare) of the changes
// from Diff and the suite's comparison c, the runs labelled as opts says
// and the trials sized for opts.Drop. Its A and B name the models and
// labels; the caller sets their files, FailOn and Failed.
func NewCompare(changes []Change, c *report.EvalComparison, opts DiffText) *report.Compare {
	out := &report.Compare{
		Format:     report.CompareFormat,
		A:          report.CompareRun{Model: c.A, Label: cmp.Or(opts.LabelA, c.A)},
		B:          report.CompareRun{Model: c.B, Label: cmp.Or(opts.LabelB, c.B)},
		Scenarios:  make([]report.CompareScenario, 0, len(changes)),
		Comparison: c,
		Detect:     Sizing(changes, c, opts.Drop),
	}
	for _, ch := range changes {
		row := report.CompareScenario{
			Name: ch.Name, Change: ch.change(), A: counts(ch.A), B: counts(ch.B),
			Delta: ch.Delta, P: ch.P, PAdjusted: ch.PAdjusted, Significant: ch.Significant,
			TrialsToDetect: ch.TrialsToDetect,
		}
		if ch.Significant {
			out.Significant++
		}
		out.Scenarios = append(out.Scenarios, row)
	}
	return out
}

// change names the change's group as report.CompareScenario.Change does.
func (c Change) change() string {
	return [...]string{report.ChangeRegressed, report.ChangeImproved, report.ChangeNotSignificant,
		report.ChangeSame, report.ChangeRemoved, report.ChangeAdded}[c.group()]
}

func counts(s *report.EvalScenario) *report.CompareCounts {
	if s == nil {
		return nil
	}
	return &report.CompareCounts{Passed: s.Passed, Trials: s.Trials, PassRate: rate(s), Class: s.Class}
}
