package evalrun

import (
	"io"

	"github.com/tapeloop/tapeloop/report"
)

// rebaseFormat is the format of rebase --json.
const rebaseFormat = "tapeloop-rebase/v1"

// rebaseDocument is what rebase --json writes: each selected scenario's result
// and the totals. docs/record.md documents it.
type rebaseDocument struct {
	Format string `json:"format"`
	// DryRun is set with --dry-run: nothing was written.
	DryRun bool `json:"dry_run"`
	// Scenarios are the selected scenarios in the order rebased; never nil.
	Scenarios []rebaseScenario `json:"scenarios"`
	// The counts of each status; Failed counts failed and error.
	Rebased   int `json:"rebased"`
	Unchanged int `json:"unchanged"`
	Refused   int `json:"refused"`
	Failed    int `json:"failed"`
	// Interrupted is set when the command was stopped before the end.
	Interrupted bool `json:"interrupted"`
}

// rebaseScenario is one scenario's rebaseResult.
type rebaseScenario struct {
	Name string `json:"name"`
	File string `json:"file"`
	// Status is rebased (or, with --dry-run, would be), unchanged,
	// refused, failed or error.
	Status string `json:"status"`
	// What names the request parts that changed; "" when none did.
	What string `json:"what"`
	// Reasons say why it was refused, failed or is an error; never nil.
	Reasons []string `json:"reasons"`
	// Diffs are the unified diffs of the scenario file and its golden;
	// never nil.
	Diffs []string `json:"diffs"`
}

// add records one scenario's result.
func (d *rebaseDocument) add(file string, r *rebaseResult) {
	d.Scenarios = append(d.Scenarios, rebaseScenario{Name: r.name, File: file, Status: r.status, What: r.what,
		Reasons: append([]string{}, r.reasons...), Diffs: append([]string{}, r.diffs...)})
	switch r.status {
	case "rebased":
		d.Rebased++
	case "unchanged":
		d.Unchanged++
	case "refused":
		d.Refused++
	default:
		d.Failed++
	}
}

// WriteJSON writes the document as indented JSON.
func (d *rebaseDocument) WriteJSON(w io.Writer) error { return report.WriteJSON(w, d) }
