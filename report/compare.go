package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// CompareFormat is the format of the comparison evalrun compare --json
// writes.
const CompareFormat = "tapeloop-compare/v1"

// ErrCompareFormat is wrapped by ReadCompare's errors about the content.
var ErrCompareFormat = errors.New("not a tapeloop-compare/v1 comparison")

// The values of CompareScenario.Change.
const (
	ChangeRegressed      = "regressed"
	ChangeImproved       = "improved"
	ChangeNotSignificant = "not_significant"
	ChangeSame           = "same"
	ChangeRemoved        = "removed"
	ChangeAdded          = "added"
)

// Compare is the comparison of a later eval run (B) with a baseline (A):
// one row per scenario, the suite's comparison and the trials that would
// detect a given drop. It is what evalrun compare prints, as JSON.
type Compare struct {
	// Format is CompareFormat.
	Format string `json:"format"`
	// A and B are the runs compared: B, the later, against A, the baseline.
	A CompareRun `json:"a"`
	B CompareRun `json:"b"`
	// Scenarios are the per-scenario changes, in compare's order:
	// significant regressions first; never nil.
	Scenarios []CompareScenario `json:"scenarios"`
	// Significant counts the scenarios whose change is significant.
	Significant int `json:"significant"`
	// Comparison is the suite's comparison over the shared scenarios.
	Comparison *EvalComparison `json:"comparison"`
	// Detect sizes the trials for a drop; nil when none was asked for.
	Detect *CompareDetect `json:"detect,omitempty"`
	// FailOn is the --fail-on rule (regression, drop or never) and Failed
	// whether it failed the comparison (exit status 1).
	FailOn string `json:"fail_on"`
	Failed bool   `json:"failed"`
}

// CompareRun is one run of a comparison.
type CompareRun struct {
	// File is the report's path as given; Model the model compared.
	File  string `json:"file"`
	Model string `json:"model"`
	// Label names the run in the text output: the model, or the file name
	// when both runs are of the same model.
	Label string `json:"label"`
}

// CompareScenario is one scenario's change from A to B.
type CompareScenario struct {
	Name string `json:"name"`
	// Change is one of regressed, improved (significant changes),
	// not_significant, same, removed (only in A) and added (only in B).
	Change string `json:"change"`
	// A and B are the scenario's trials in each run; nil (null) when the
	// scenario is not in that run.
	A *CompareCounts `json:"a"`
	B *CompareCounts `json:"b"`
	// Delta is B's pass rate minus A's, 0 when either is missing.
	Delta float64 `json:"delta"`
	// P is Fisher's exact test's two-sided p-value and PAdjusted the same
	// after Holm's correction over the scenarios scored in both runs; 1
	// when the scenario is not in both.
	P         float64 `json:"p"`
	PAdjusted float64 `json:"p_adjusted"`
	// Significant reports whether PAdjusted is below Alpha.
	Significant bool `json:"significant"`
	// TrialsToDetect is, for a change that is not significant, the trials
	// per run that would detect a change of its size; 0 (absent) otherwise.
	TrialsToDetect int `json:"trials_to_detect,omitempty"`
}

// CompareCounts are a scenario's scored trials in one run.
type CompareCounts struct {
	Passed   int     `json:"passed"`
	Trials   int     `json:"trials"`
	PassRate float64 `json:"pass_rate"`
	// Class is the flake class (pass, fail, flaky; see Eval).
	Class string `json:"class"`
}

// CompareDetect is the trials that would detect a drop of Drop in pass
// rate with Power at the significance level Alpha.
type CompareDetect struct {
	Drop  float64 `json:"drop"`
	Power float64 `json:"power"`
	Alpha float64 `json:"alpha"`
	// PassRate is A's mean pass rate over the shared scenarios, the rate
	// the drop is from.
	PassRate float64 `json:"pass_rate"`
	// ScenarioTrials is the trials per run that Fisher's exact test needs
	// to detect the drop in one scenario passing at PassRate; 0 when it
	// cannot be sized.
	ScenarioTrials int `json:"scenario_trials"`
	// SuiteTrials is the trials per scenario and run that the suite's test
	// (the hierarchical bootstrap interval wholly below zero) needs to
	// detect the drop in the mean pass rate, every scenario losing the same
	// share of its rate; 0 when the drop is out of reach or cannot be
	// sized.
	SuiteTrials int `json:"suite_trials"`
}

// WriteJSON writes the comparison as indented JSON, floats rounded to six
// significant digits as in every report.
func (c *Compare) WriteJSON(w io.Writer) error {
	if err := writeJSON(w, c, false); err != nil {
		return fmt.Errorf("writing comparison: %w", err)
	}
	return nil
}

// ReadCompare decodes a comparison from r and checks its format. Errors
// about the content wrap ErrCompareFormat; unknown fields are allowed.
func ReadCompare(r io.Reader) (*Compare, error) {
	var c Compare
	if err := json.NewDecoder(r).Decode(&c); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCompareFormat, err)
	}
	if c.Format != CompareFormat {
		return nil, fmt.Errorf("%w: format is %q, want %q", ErrCompareFormat, c.Format, CompareFormat)
	}
	return &c, nil
}
