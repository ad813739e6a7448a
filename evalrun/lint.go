package evalrun

import (
	"context"
	"fmt"

	"github.com/tapeloop/tapeloop/harness"
)

func init() {
	register(&command{name: "lint", summary: "check scenario files without running them", run: runLint})
}

// lintDoc is lint's --help text.
const lintDoc = `Loads every scenario file and builds its workspace and tools without running
it, printing "ok NAME" or the problem (file:line: key: problem), and reports golden
files no scenario refers to (orphans). Exit 0 when every file is a valid scenario
and no golden is orphaned, 2 otherwise.`

func runLint(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "lint", "evalrun lint [flags] [scenario files or folders (default: scenarios)]", lintDoc)
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	targets, code := discover(e, "lint", args)
	if code != exitOK {
		return code
	}
	bad := 0
	for _, t := range targets {
		s, skip, err := t.load(e, "lint")
		if skip {
			continue
		}
		if err == nil {
			err = s.Validate(&harness.RunOptions{Tools: e.tools})
		}
		if err != nil {
			bad++
			fmt.Fprintln(e.stderr, err)
			continue
		}
		fmt.Fprintf(e.stdout, "ok    %s\n", s.Name)
	}
	orphans, err := harness.Orphans(folders(args)...)
	if err != nil {
		fmt.Fprintf(e.stderr, "evalrun lint: looking for orphan golden files: %v\n", err)
		return exitUsage
	}
	for _, o := range orphans {
		bad++
		fmt.Fprintln(e.stderr, orphanMessage(o))
	}
	fmt.Fprintf(e.stdout, "%d scenario files, %d with errors\n", len(targets), bad)
	if bad > 0 {
		return exitUsage
	}
	return exitOK
}
