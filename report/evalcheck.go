package report

import "fmt"

// MaxScenarioTrials is the most trials (scored, errored and not run) one
// scenario × model row of an eval report may hold: eval runs no more per
// scenario (--trials), and it bounds the work of reading a report (Fisher's
// test and the bootstrap grow with the trials).
const MaxScenarioTrials = 100000

// check validates the counts of a decoded report: none negative, no more
// passes than trials, no scenario row of nothing (no count and no trial
// listed: merge recomputes the counts from the trials), no row over
// MaxScenarioTrials. The error names the key ("scenarios[3] (name): ...").
func (e *Eval) check() error {
	counts := func(at string, c ...any) error {
		for i := 0; i+1 < len(c); i += 2 {
			if n := c[i+1].(int); n < 0 {
				return fmt.Errorf("%w: %s: %s %d is negative", ErrEvalFormat, at, c[i], n)
			}
		}
		return nil
	}
	for i, m := range e.Models {
		at := fmt.Sprintf("models[%d] (%s)", i, Printable(m.Name))
		if err := counts(at, "trials", m.Trials, "passed", m.Passed, "errors", m.Errors, "not_run", m.NotRun, "model_calls", m.ModelCalls); err != nil {
			return err
		}
		if m.Passed > m.Trials {
			return fmt.Errorf("%w: %s: passed %d is more than trials %d", ErrEvalFormat, at, m.Passed, m.Trials)
		}
	}
	for i, s := range e.Scenarios {
		at := fmt.Sprintf("scenarios[%d] (%s)", i, Printable(s.Name))
		if err := counts(at, "trials", s.Trials, "passed", s.Passed, "errors", s.Errors, "not_run", s.NotRun); err != nil {
			return err
		}
		switch total := s.Trials + s.Errors + s.NotRun; {
		case len(s.TrialsDetail) > MaxScenarioTrials:
			return fmt.Errorf("%w: %s: %d trials are more than %d", ErrEvalFormat, at, len(s.TrialsDetail), MaxScenarioTrials)
		case s.Passed > s.Trials:
			return fmt.Errorf("%w: %s: passed %d is more than trials %d", ErrEvalFormat, at, s.Passed, s.Trials)
		case s.Trials > MaxScenarioTrials || s.Errors > MaxScenarioTrials || s.NotRun > MaxScenarioTrials || total > MaxScenarioTrials:
			return fmt.Errorf("%w: %s: trials %d is more than %d (with %d errored and %d not run)", ErrEvalFormat, at, s.Trials, MaxScenarioTrials, s.Errors, s.NotRun)
		case total == 0 && len(s.TrialsDetail) == 0:
			return fmt.Errorf("%w: %s: no trial scored, errored or left unrun", ErrEvalFormat, at)
		}
	}
	u := e.Summary
	return counts("summary", "trials", u.Trials, "passed", u.Passed, "failed", u.Failed, "errors", u.Errors, "not_run", u.NotRun)
}
