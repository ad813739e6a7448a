package evalrun

import (
	"fmt"
	"os"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
)

// orphanResults finds the golden files under the command's folders that no
// scenario refers to. Each becomes a failed result (so text, --json and
// --junit all list it, and the exit code is 1), unless prune deletes it
// (reported on stdout). The code is exitUsage when a folder cannot be read or
// an orphan cannot be deleted.
func orphanResults(e *env, cmd string, args []string, prune bool) ([]*replayResult, int) {
	orphans, err := scenario.Orphans(folders(args)...)
	if err != nil {
		fmt.Fprintf(e.stderr, "evalrun %s: looking for orphan golden files: %v\n", cmd, err)
		return nil, exitUsage
	}
	var out []*replayResult
	for _, o := range orphans {
		if prune {
			if err := os.Remove(o); err != nil {
				fmt.Fprintf(e.stderr, "evalrun %s: --prune: %v\n", cmd, err)
				return nil, exitUsage
			}
			fmt.Fprintf(e.stdout, "pruned %s (no scenario refers to it)\n", o)
			continue
		}
		out = append(out, &replayResult{Verdict: &harness.Verdict{
			Path: o, Name: o, Golden: o,
			Failures: []*fileerr.Error{{Problem: orphanMessage(o)}},
		}})
	}
	return out, exitOK
}

func orphanMessage(path string) string {
	return fmt.Sprintf("golden file %s has no scenario: delete it (evalrun replay --prune) or restore its scenario", path)
}

// reportStaleTemps warns about the temporary files interrupted golden updates
// left under the command's folders, or with update removes them; either way
// on stderr, without changing the exit code.
func reportStaleTemps(e *env, cmd string, args []string, update bool) {
	temps, err := scenario.StaleTemps(folders(args)...)
	if err != nil {
		fmt.Fprintf(e.stderr, "evalrun %s: looking for stale temporary files: %v\n", cmd, err)
		return
	}
	for _, t := range temps {
		if !update {
			fmt.Fprintf(e.stderr, "evalrun %s: warning: %s is a temporary file left by an interrupted --update; delete it (replay --update removes it)\n", cmd, t)
			continue
		}
		if err := os.Remove(t); err != nil {
			fmt.Fprintf(e.stderr, "evalrun %s: removing a stale temporary file: %v\n", cmd, err)
			continue
		}
		fmt.Fprintf(e.stderr, "evalrun %s: removed %s, a temporary file left by an interrupted --update\n", cmd, t)
	}
}
