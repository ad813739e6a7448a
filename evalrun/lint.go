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
it, printing "ok NAME" or the problem (file:line: key: problem). Exit 0 when every
file is a valid scenario, 2 otherwise.`

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
		s, err := harness.Load(t.path, t.root)
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
	fmt.Fprintf(e.stdout, "%d scenario files, %d with errors\n", len(targets), bad)
	if bad > 0 {
		return exitUsage
	}
	return exitOK
}
