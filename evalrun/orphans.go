package evalrun

import (
	"fmt"
	"os"

	"github.com/tapeloop/tapeloop/harness"
)

// orphanResults finds the golden files under the command's folders that no
// scenario refers to. Each becomes a failed result (so text, --json and
// --junit all list it, and the exit code is 1), unless prune deletes it
// (reported on stdout). The code is exitUsage when a folder cannot be read or
// an orphan cannot be deleted.
func orphanResults(e *env, cmd string, args []string, prune bool) ([]*replayResult, int) {
	orphans, err := harness.Orphans(folders(args)...)
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
			Failures: []string{orphanMessage(o)},
		}})
	}
	return out, exitOK
}

func orphanMessage(path string) string {
	return fmt.Sprintf("golden file %s has no scenario: delete it (evalrun replay --prune) or restore its scenario", path)
}
