package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/tapeloop/tapeloop/report"
)

// CheckpointFormat is the format version of a checkpoint file's first
// line.
const CheckpointFormat = "tapeloop-eval-checkpoint/v1"

// ErrCheckpoint is wrapped by every error about a checkpoint file's
// content.
var ErrCheckpoint = errors.New("not a tapeloop eval checkpoint")

// Checkpoint is a file an eval run appends each finished trial to, one JSON
// line written with one write and synced before the next trial of its place
// starts: a run stopped at any point, by kill -9 too, leaves every trial it
// finished on disk, and Resume continues from it. The first line names the
// run (models, trials per scenario, scenario names). A line cut short by a
// kill is dropped when the file is opened again. The zero Checkpoint is
// not usable; OpenCheckpoint makes one.
type Checkpoint struct {
	path string
	// prev is what the file held when it was opened; nil when nothing.
	prev *report.Eval

	mu     sync.Mutex
	f      *os.File
	header bool
}

// checkpointLine is one line of a checkpoint file: the header (Format
// set) or a finished trial.
type checkpointLine struct {
	Format    string   `json:"format,omitempty"`
	Models    []string `json:"models,omitempty"`
	Trials    int      `json:"trials,omitempty"`
	Scenarios []string `json:"scenarios,omitempty"`

	Scenario string            `json:"scenario,omitempty"`
	Model    string            `json:"model,omitempty"`
	Digest   string            `json:"digest,omitempty"`
	Trial    *report.EvalTrial `json:"trial,omitempty"`
}

// OpenCheckpoint opens the checkpoint file at path for appending, creating
// it when it does not exist. A file that holds trials already yields them
// as Resumed; a last line cut short (no newline) is cut off the file.
func OpenCheckpoint(path string) (*Checkpoint, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	whole := data[:bytes.LastIndexByte(data, '\n')+1]
	c := &Checkpoint{path: path}
	if len(whole) > 0 {
		if c.prev, err = readCheckpoint(path, whole); err != nil {
			return nil, err
		}
		c.header = true
	}
	c.f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if err := c.f.Truncate(int64(len(whole))); err != nil {
		c.f.Close()
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if _, err := c.f.Seek(0, io.SeekEnd); err != nil {
		c.f.Close()
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return c, nil
}

// ReadCheckpoint decodes a checkpoint file's whole lines from r as the
// report of the run it checkpointed, for Options.Resume: its models, its
// trials per scenario, a row per scenario and model holding the trials
// finished. Errors about the content wrap ErrCheckpoint.
func ReadCheckpoint(r io.Reader) (*report.Eval, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return readCheckpoint("checkpoint", data[:bytes.LastIndexByte(data, '\n')+1])
}

// IsCheckpoint reports whether data begins as a checkpoint file does.
func IsCheckpoint(data []byte) bool {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	var l checkpointLine
	return json.Unmarshal(line, &l) == nil && l.Format == CheckpointFormat
}

func readCheckpoint(name string, data []byte) (*report.Eval, error) {
	out := &report.Eval{Format: report.EvalFormat, Models: []report.EvalModel{}, Scenarios: []report.EvalScenario{}}
	rows := map[[2]string]int{}
	for n, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var l checkpointLine
		if err := json.Unmarshal(line, &l); err != nil {
			return nil, fmt.Errorf("%s:%d: %w: %w", name, n+1, ErrCheckpoint, err)
		}
		if n == 0 {
			if l.Format != CheckpointFormat {
				return nil, fmt.Errorf("%s:1: %w: format is %q, want %q", name, ErrCheckpoint, l.Format, CheckpointFormat)
			}
			for _, m := range l.Models {
				out.Models = append(out.Models, report.EvalModel{Name: m})
			}
			out.Summary.TrialsPerScenario = l.Trials
			for _, s := range l.Scenarios {
				for _, m := range l.Models {
					rows[[2]string{s, m}] = len(out.Scenarios)
					out.Scenarios = append(out.Scenarios, report.EvalScenario{Name: s, Model: m})
				}
			}
			continue
		}
		i, ok := rows[[2]string{l.Scenario, l.Model}]
		if l.Trial == nil || !ok || l.Trial.Trial < 1 {
			return nil, fmt.Errorf("%s:%d: %w: a trial of scenario %q and model %q the header does not name", name, n+1, ErrCheckpoint, l.Scenario, l.Model)
		}
		row := &out.Scenarios[i]
		if row.Digest != l.Digest {
			// The scenario changed between runs: its earlier trials
			// are of other content.
			row.Digest, row.TrialsDetail = l.Digest, nil
		}
		row.TrialsDetail = slices.DeleteFunc(row.TrialsDetail, func(t report.EvalTrial) bool { return t.Trial == l.Trial.Trial })
		row.TrialsDetail = append(row.TrialsDetail, *l.Trial)
	}
	if len(out.Models) == 0 {
		return nil, fmt.Errorf("%s:1: %w: no header line", name, ErrCheckpoint)
	}
	return out, nil
}

// Resumed returns the trials the file held when it was opened, as the
// report of the run they came from; nil when it held none.
func (c *Checkpoint) Resumed() *report.Eval {
	if c.prev == nil || len(c.prev.Scenarios) == 0 {
		return nil
	}
	for _, s := range c.prev.Scenarios {
		if len(s.TrialsDetail) > 0 {
			return c.prev
		}
	}
	return nil
}

// Path returns the file's path.
func (c *Checkpoint) Path() string { return c.path }

// start writes the header line of a run, unless the file has one.
func (c *Checkpoint) start(models []string, trials int, scenarios []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.header {
		return nil
	}
	c.header = true
	return c.append(checkpointLine{Format: CheckpointFormat, Models: models, Trials: trials, Scenarios: scenarios})
}

// add appends one finished trial and syncs the file.
func (c *Checkpoint) add(scenario, model, digest string, t *report.EvalTrial) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.append(checkpointLine{Scenario: scenario, Model: model, Digest: digest, Trial: t})
}

func (c *Checkpoint) append(l checkpointLine) error {
	line, err := json.Marshal(l)
	if err != nil {
		return err
	}
	// One write of the whole line: a kill leaves it whole or cut short,
	// and a line cut short is dropped on open.
	if _, err := c.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("checkpoint %s: %w", c.path, err)
	}
	if err := c.f.Sync(); err != nil {
		return fmt.Errorf("checkpoint %s: %w", c.path, err)
	}
	return nil
}

// Close closes the file.
func (c *Checkpoint) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.f.Close()
}
