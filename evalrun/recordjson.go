package evalrun

import (
	"io"
	"maps"

	"github.com/tapeloop/tapeloop/report"
)

// recordFormat is the format of record --json.
const recordFormat = "tapeloop-record/v1"

// recordDocument is what record --json writes: each scenario's recording
// and the totals. docs/record.md documents it.
type recordDocument struct {
	Format string `json:"format"`
	// Model is --model; Mode is --mode (once, all or extend).
	Model string `json:"model"`
	Mode  string `json:"mode"`
	// Scenarios are the scenarios in the order recorded; never nil.
	Scenarios []recordScenario `json:"scenarios"`
	// The counts of each status; Failed counts failed and error.
	Recorded int `json:"recorded"`
	Skipped  int `json:"skipped"`
	Failed   int `json:"failed"`
	// Interrupted is set when the command was stopped; NotStarted counts
	// the scenarios it did not get to (and the one it stopped in).
	Interrupted bool `json:"interrupted"`
	NotStarted  int  `json:"not_started"`
	// Redacted counts the secrets redacted, by kind (never which); never
	// nil.
	Redacted map[string]int `json:"redacted"`
}

// recordScenario is one scenario's recordResult.
type recordScenario struct {
	Name string `json:"name"`
	File string `json:"file"`
	// Status is recorded, skipped, failed (the recording failed), error
	// (the file could not be read or written) or interrupted.
	Status string `json:"status"`
	// Reason says why it was skipped, failed or is an error; "" otherwise.
	Reason string `json:"reason"`
	// Written is set when the tape was written into the file.
	Written bool `json:"written"`
	// Calls counts the live model calls, Tokens their tokens, WallMS the
	// time the recording took.
	Calls  int           `json:"calls"`
	Tokens report.Tokens `json:"tokens"`
	WallMS float64       `json:"wall_ms"`
	// Replay is the replay of the recording that wrote its golden; nil
	// (null) with --no-golden or when nothing was written.
	Replay *recordReplay `json:"replay"`
}

// recordReplay is the replay of a recording (its harness.Verdict).
type recordReplay struct {
	Passed bool `json:"passed"`
	// Golden is the golden file's path; Updated is set when it was
	// written.
	Golden  string `json:"golden"`
	Updated bool   `json:"updated"`
	// Failures are the expectation messages; never nil. Error is why the
	// replay could not run; "" when it ran.
	Failures []string `json:"failures"`
	Error    string   `json:"error"`
}

// newRecordDocument returns the document of a record run's results, the
// redactor's counts and whether it was interrupted with total scenarios.
func newRecordDocument(c *recordConfig, results []*recordResult, total int, interrupted bool) *recordDocument {
	d := &recordDocument{Format: recordFormat, Model: c.model, Mode: c.mode, Scenarios: []recordScenario{},
		Interrupted: interrupted, Redacted: map[string]int{}}
	maps.Copy(d.Redacted, c.redactor.Counts())
	for _, r := range results {
		s := recordScenario{Name: r.name, File: r.path, Status: r.status, Reason: r.reason, Written: r.written, Calls: r.calls,
			Tokens: report.Tokens{Input: r.usage.InputTokens, Output: r.usage.OutputTokens, Cached: r.usage.CachedInputTokens},
			WallMS: float64(r.elapsed.Microseconds()) / 1000}
		if v := r.verdict; v != nil {
			s.Replay = &recordReplay{Passed: v.Err == nil && v.Passed(), Golden: v.Golden, Updated: v.Updated, Failures: append([]string{}, texts(v.Failures)...)}
			if v.Err != nil {
				s.Replay.Error = v.Err.Error()
			}
		}
		d.Scenarios = append(d.Scenarios, s)
		switch r.status {
		case "recorded":
			d.Recorded++
		case "skipped":
			d.Skipped++
		case "failed", "error":
			d.Failed++
		case "interrupted":
			d.NotStarted++
		}
	}
	if interrupted {
		d.NotStarted += total - len(results)
	}
	return d
}

// WriteJSON writes the document as indented JSON.
func (d *recordDocument) WriteJSON(w io.Writer) error { return report.WriteJSON(w, d) }
