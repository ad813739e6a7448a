package evalrun

import (
	"errors"
	"io"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

// lintFormat is the format of lint --json.
const lintFormat = "tapeloop-lint/v1"

// lintResult is what lint --json writes: every file's problems, and the
// golden files no scenario refers to. docs/scenario-format.md documents it.
type lintResult struct {
	Format string `json:"format"`
	// Files counts the scenario files linted; WithErrors those with an
	// error, and the orphaned goldens; OK is WithErrors == 0 (exit 0).
	Files      int  `json:"files"`
	WithErrors int  `json:"with_errors"`
	OK         bool `json:"ok"`
	// Scenarios are the files in the order linted; never nil.
	Scenarios []lintFile `json:"scenarios"`
	// Orphans are the golden files no scenario refers to; never nil.
	Orphans []string `json:"orphans"`
}

// lintFile is one linted file.
type lintFile struct {
	File string `json:"file"`
	// Name is the scenario's name; "" when the file did not load.
	Name string `json:"name"`
	// OK is set when the file has no error (warnings allowed).
	OK bool `json:"ok"`
	// Problems are its errors and warnings, by line; never nil.
	Problems []lintProblem `json:"problems"`
	// Requests says which request parts the tape pins; nil when the file
	// did not load.
	Requests *lintPinning `json:"requests"`
}

// lintProblem is one problem scenario.Lint found, as --json writes it.
type lintProblem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Key     string `json:"key"`
	Message string `json:"message"`
	Warning bool   `json:"warning"`
}

// lintPinning is replay.Pinning: which parts of the requests a tape pins.
type lintPinning struct {
	System   bool   `json:"system"`
	Tools    bool   `json:"tools"`
	Params   bool   `json:"params"`
	Calls    int    `json:"calls"`
	Messages int    `json:"messages"`
	Unpinned []int  `json:"unpinned"`
	Summary  string `json:"summary"`
}

// add records one file's lint.
func (r *lintResult) add(path string, s *scenario.Scenario, problems []*fileerr.Error, pins *replay.Pinning, ok bool) {
	f := lintFile{File: path, OK: ok, Problems: make([]lintProblem, 0, len(problems))}
	if s != nil {
		f.Name = s.Name
	}
	for _, p := range problems {
		f.Problems = append(f.Problems, lintProblem{File: p.File, Line: p.Line, Key: p.Key, Message: p.Problem, Warning: errors.Is(p, scenario.ErrWarning)})
	}
	if pins != nil {
		f.Requests = &lintPinning{System: pins.System, Tools: pins.Tools, Params: pins.Params, Calls: pins.Calls, Messages: pins.Messages,
			Unpinned: append(make([]int, 0, len(pins.Unpinned)), pins.Unpinned...), Summary: pins.String()}
	}
	r.Scenarios = append(r.Scenarios, f)
}

// WriteJSON writes the result as indented JSON.
func (r *lintResult) WriteJSON(w io.Writer) error { return report.WriteJSON(w, r) }
