package evalrun

import (
	"fmt"
	"os"

	"github.com/tapeloop/tapeloop/harness"
)

// defaultScenarios is the folder replayed when no path is given.
const defaultScenarios = "scenarios"

// target is one scenario file and the folder its name is relative to.
type target struct{ path, root string }

// discover expands the command's path arguments into scenario files.
func discover(e *env, cmd string, args []string) ([]target, int) {
	if len(args) == 0 {
		if info, err := os.Stat(defaultScenarios); err != nil || !info.IsDir() {
			fmt.Fprintf(e.stderr, "evalrun %s: no %s folder here: run from the repository root or name scenario files or folders\n", cmd, defaultScenarios)
			return nil, exitUsage
		}
		args = []string{defaultScenarios}
	}
	var out []target
	for _, a := range args {
		info, err := os.Stat(a)
		if err != nil {
			fmt.Fprintf(e.stderr, "evalrun %s: %v\n", cmd, err)
			return nil, exitUsage
		}
		root := ""
		if info.IsDir() {
			root = a
		}
		files, err := harness.Discover(a)
		if err != nil {
			fmt.Fprintf(e.stderr, "evalrun %s: %v\n", cmd, err)
			return nil, exitUsage
		}
		for _, f := range files {
			out = append(out, target{path: f, root: root})
		}
	}
	if len(out) == 0 {
		fmt.Fprintf(e.stderr, "evalrun %s: no scenario files in %v\n", cmd, args)
		return nil, exitUsage
	}
	return out, exitOK
}
