package evalrun

import (
	"context"
	"errors"
	"fmt"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

func init() {
	register(&command{name: "lint", summary: "check scenario files without running them", run: runLint})
}

// lintDoc is lint's --help text.
const lintDoc = `Loads every scenario file and builds its workspace and tools without running
it, printing "ok NAME" or every problem it finds at once (file:line: key: problem):
tabs in indentation, final: given as a string, durations without a unit, workspace
paths that escape, tape calls to tools not set up, expectations naming a call id,
position, tool or repair fix that does not exist; a call id reused across the tape
is a warning. It also reports golden files no scenario refers to (orphans), and
says per scenario which parts of the requests its tape pins (the system prompt,
the tools' descriptions and schemas, each model call's messages, and the
request parameters: model, tool choice, temperature, ...): a part not pinned is
not compared on replay, and --strict-requests makes it an error (evalrun rebase
--all pins them; a native scenario names its model in setup.loop.request.model). Exit 0 when every file is a valid scenario and
no golden is orphaned, 2 otherwise. --json FILE also writes it all as JSON
(tapeloop-lint/v1; - for standard output, the text then on standard error).`

func runLint(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "lint", "evalrun lint [--strict-requests] [--json FILE] [scenario files or folders (default: scenarios)]", lintDoc)
	strict := fs.Bool("strict-requests", false, "make a request part the tape does not pin an error")
	var jsonPath string
	addJSONFlag(fs, &jsonPath, lintFormat)
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	targets, code := discover(e, "lint", args)
	if code != exitOK {
		return code
	}
	// With --json -, the JSON takes standard output and the text goes to
	// standard error.
	text := e.stdout
	if jsonPath == "-" {
		text = e.stderr
	}
	res := &lintResult{Format: lintFormat, Scenarios: []lintFile{}, Orphans: []string{}}
	bad := 0
	for _, t := range targets {
		if _, skip, _ := t.load(e, "lint"); skip {
			continue
		}
		s, problems := scenario.Lint(t.path, &scenario.LintOptions{Validate: func(s *scenario.Scenario) error {
			return harness.Validate(s, &harness.RunOptions{Tools: e.tools, Checks: e.checks})
		}, Redactor: e.redactor()})
		var pins *replay.Pinning
		if s != nil {
			p := replay.PinningOf(s.ReplayTape())
			pins = &p
			if *strict {
				problems = append(problems, unpinned(s, p)...)
			}
		}
		errs := 0
		for _, p := range problems {
			fmt.Fprintln(e.stderr, report.Printable(scenario.LintText(p)))
			if !errors.Is(p, scenario.ErrWarning) {
				errs++
			}
		}
		res.add(t.path, s, problems, pins, errs == 0)
		if errs > 0 {
			bad++
			continue
		}
		fmt.Fprintf(text, "ok    %s\n      requests: %s\n", report.Printable(s.Name), *pins)
	}
	orphans, err := scenario.Orphans(folders(args)...)
	if err != nil {
		fmt.Fprintf(e.stderr, "evalrun lint: looking for orphan golden files: %v\n", err)
		return exitUsage
	}
	for _, o := range orphans {
		bad++
		fmt.Fprintln(e.stderr, orphanMessage(o))
		res.Orphans = append(res.Orphans, o)
	}
	files := "scenario files"
	if len(targets) == 1 {
		files = "scenario file"
	}
	fmt.Fprintf(text, "%d %s, %d with errors\n", len(targets), files, bad)
	res.Files, res.WithErrors, res.OK = len(targets), bad, bad == 0
	if err := writeJSONOutput(e, jsonPath, res.WriteJSON); err != nil {
		fmt.Fprintf(e.stderr, "evalrun lint: --json: %v\n", err)
		return exitUsage
	}
	if bad > 0 {
		return exitUsage
	}
	return exitOK
}

// unpinned returns an error for each request part s's tape does not pin
// (lint --strict-requests).
func unpinned(s *scenario.Scenario, p replay.Pinning) []*fileerr.Error {
	const fix = "; it is not compared on replay (evalrun rebase --all pins it)"
	var out []*fileerr.Error
	line := 0
	if s.Offered != nil {
		line = s.Offered.Line
	}
	if !p.System {
		out = append(out, &fileerr.Error{File: s.Path, Line: line, Key: "offered.system", Problem: "the system prompt is not pinned" + fix, Kind: scenario.ErrScenario})
	}
	if !p.Tools {
		out = append(out, &fileerr.Error{File: s.Path, Line: line, Key: "offered.tools", Problem: "the tools' descriptions and schemas are not pinned" + fix, Kind: scenario.ErrScenario})
	}
	switch {
	case p.Params:
	case s.Setup.Agent != nil:
		out = append(out, &fileerr.Error{File: s.Path, Line: line, Key: "offered.params", Problem: "the request parameters the agent sends (model, tool choice, temperature, max tokens, ...) are not pinned" + fix, Kind: scenario.ErrScenario})
	case s.Setup.Loop.Params() != nil:
		out = append(out, &fileerr.Error{File: s.Path, Line: line, Key: "offered.params", Problem: "the request parameters of setup.loop.request are not pinned" + fix, Kind: scenario.ErrScenario})
	}
	if s.Setup.Agent == nil && s.Setup.Loop.Model == "" {
		out = append(out, &fileerr.Error{File: s.Path, Key: "setup.loop.request.model", Problem: "the model is not pinned: a recording of any model replays; name the scenario's own (PROVIDER/MODEL), and evalrun rebase --all pins it", Kind: scenario.ErrScenario})
	}
	for _, i := range p.Unpinned {
		out = append(out, &fileerr.Error{File: s.Path, Line: s.Tape[i].Line, Key: fmt.Sprintf("tape[%d].request.new", i), Problem: "the messages of this model call are not pinned" + fix, Kind: scenario.ErrScenario})
	}
	return out
}
