package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// ReplayFormat is the format of a replay result, the replay member of the
// tapeloop-*/v1 family (see docs/reports.md).
const ReplayFormat = "tapeloop-replay/v1"

// Replay is the result of replaying scenarios against their goldens: what
// `evalrun replay --json` writes, and what the HTML and JUnit reports and
// merge read.
type Replay struct {
	// Format is ReplayFormat.
	Format string `json:"format"`
	// Shard is the part of the suite this result covers; nil means all of it.
	Shard *Shard `json:"shard,omitempty"`
	// Summary counts the scenarios; it is always recomputable from Scenarios.
	Summary ReplaySummary `json:"summary"`
	// Scenarios are in canonical order (see SortScenarios).
	Scenarios []ScenarioResult `json:"scenarios"`
}

// ReplaySummary counts a replay result's scenarios.
type ReplaySummary struct {
	Scenarios int `json:"scenarios"`
	Passed    int `json:"passed"`
	// Failed counts failures and errors both; Errors only the scenarios that
	// could not be loaded or run.
	Failed int `json:"failed"`
	Errors int `json:"errors"`
	// Seconds sums the scenarios' times (not the wall time of a parallel run).
	Seconds float64 `json:"seconds"`
	// InputTokens and OutputTokens sum the usage recorded in the tapes.
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// ScenarioResult is one scenario of a replay result.
type ScenarioResult struct {
	Name string   `json:"name"`
	Path string   `json:"path"`
	Tags []string `json:"tags,omitempty"`
	// Status is StatusPass, StatusFail or StatusError.
	Status  string  `json:"status"`
	Seconds float64 `json:"seconds"`
	// Termination is why the run ended; "" when it did not run.
	Termination string `json:"termination,omitempty"`
	Iterations  int    `json:"iterations"`
	// Failures lists every failure message in the order found; nil when passed.
	Failures []string `json:"failures,omitempty"`
	// Error is the input error of a scenario that could not be loaded or run.
	Error string `json:"error,omitempty"`
	// Golden is the golden file; Updated is set when --update rewrote it.
	Golden  string `json:"golden,omitempty"`
	Updated bool   `json:"updated,omitempty"`
	// GoldenDifference is the first difference from the golden (- golden,
	// + outcome), "" when the outcome matched it or it is missing.
	GoldenDifference string `json:"golden_difference,omitempty"`
	// Expectations lists the expect block's keys in file order with whether
	// each held; nil when the scenario has none.
	Expectations []Expectation `json:"expectations,omitempty"`
	// Transcript is nil when the scenario did not run.
	Transcript *Transcript `json:"transcript,omitempty"`
	// Judge holds the verdict on each expect.judge item, in order, as the
	// replay re-used it from the scenario's judge: section; nil when the
	// scenario has none.
	Judge []Verdict `json:"judge,omitempty"`
	// Sandbox says what the sandbox of the scenario's agent program did not
	// hold and what it killed, a line each (harness.Outcome.Sandbox); nil
	// when there is nothing to say. It is not a failure.
	Sandbox []string `json:"sandbox,omitempty"`
}

// Expectation is one key of a scenario's expect block and whether it held.
type Expectation struct {
	Key    string `json:"key"`
	Passed bool   `json:"passed"`
	// Messages are the failure messages naming this key; nil when it held.
	Messages []string `json:"messages,omitempty"`
}

// Passed reports whether the scenario passed.
func (s *ScenarioResult) Passed() bool { return s.Status == StatusPass }

// The golden difference is recognised by the text harness.CompareGolden
// gives it (tested against harness.Verify in golden_test.go).
const (
	goldenDifferencePrefix = "the outcome differs from the golden file "
	goldenDifferenceMarker = "(- golden, + outcome; first difference):\n"
)

// GoldenDifference returns the first-difference hunk of a failure message
// that says the outcome differs from its golden file (the text
// harness.CompareGolden gives), and whether failure is one.
func GoldenDifference(failure string) (diff string, ok bool) {
	if !strings.HasPrefix(failure, goldenDifferencePrefix) {
		return "", false
	}
	_, diff, ok = strings.Cut(failure, goldenDifferenceMarker)
	return diff, ok
}

// NewReplay returns the replay result of the given scenarios: sorted into
// canonical order, with the summary computed from them.
func NewReplay(scenarios []ScenarioResult, shard *Shard) *Replay {
	r := &Replay{Format: ReplayFormat, Shard: shard, Scenarios: slices.Clone(scenarios)}
	if r.Scenarios == nil {
		r.Scenarios = []ScenarioResult{}
	}
	SortScenarios(r.Scenarios)
	r.Summary = summarise(r.Scenarios)
	return r
}

// summarise computes a summary from the scenarios alone.
func summarise(scenarios []ScenarioResult) ReplaySummary {
	var s ReplaySummary
	for i := range scenarios {
		s = s.Add(&scenarios[i])
	}
	return s
}

// SortScenarios puts scenarios in canonical order: by path, compared folder
// by folder (the order a directory walk finds them), then by name.
func SortScenarios(s []ScenarioResult) {
	slices.SortStableFunc(s, func(a, b ScenarioResult) int { return CompareScenarios(&a, &b) })
}

func comparePaths(a, b string) int {
	return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
}

// WriteJSON writes r as indented JSON, times rounded to six significant
// digits.
func (r *Replay) WriteJSON(w io.Writer) error {
	return r.stream().WriteJSON(w)
}

// DecodeReplay decodes a replay result, checking its format. name is the
// file's name, for errors.
func DecodeReplay(name string, data []byte) (*Replay, error) {
	var r Replay
	if err := decodeJSON(name, data, &r); err != nil {
		return nil, err
	}
	if r.Format != ReplayFormat {
		return nil, fmt.Errorf("%w: %s: format %q, want %q", ErrResult, name, r.Format, ReplayFormat)
	}
	return &r, nil
}
