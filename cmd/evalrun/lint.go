package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/tapeloop/tapeloop/harness"
)

func init() {
	register(&command{name: "lint", summary: "check scenario files without running them", run: runLint})
}

func runLint(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "usage: evalrun lint [scenario files or folders (default: scenarios)]")
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	targets, code := discover(e, "lint", fs.Args())
	if code != exitOK {
		return code
	}
	bad := 0
	for _, t := range targets {
		s, err := harness.Load(t.path, t.root)
		if err == nil {
			err = s.Validate()
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
