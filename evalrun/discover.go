package evalrun

import (
	"errors"
	"fmt"
	"os"

	"github.com/tapeloop/tapeloop/scenario"
)

// defaultScenarios is the folder replayed when no path is given.
const defaultScenarios = "scenarios"

// target is one scenario file and the folder it was found under ("" when it
// was named on the command line).
type target struct{ path, root string }

// load loads the target's scenario. A YAML file found under a folder that is
// not a scenario at all (no format: key) is skipped with a note on stderr:
// skip is true and err nil. Named on the command line, it is an error.
func (t target) load(e *env, cmd string) (s *scenario.Scenario, skip bool, err error) {
	s, err = scenario.Load(t.path)
	if err != nil && t.root != "" && errors.Is(err, scenario.ErrNotScenario) {
		fmt.Fprintf(e.stderr, "evalrun %s: skipping %v\n", cmd, err)
		return nil, true, nil
	}
	return s, false, err
}

// folders returns the folders among the command's path arguments (the
// default scenarios folder when there are none).
func folders(args []string) []string {
	if len(args) == 0 {
		args = []string{defaultScenarios}
	}
	var out []string
	for _, a := range args {
		if info, err := os.Stat(a); err == nil && info.IsDir() {
			out = append(out, a)
		}
	}
	return out
}

// discover expands the command's path arguments into scenario files, in
// the arguments' order (each folder's files sorted), each file once.
func discover(e *env, cmd string, args []string) ([]target, int) {
	if len(args) == 0 {
		if info, err := os.Stat(defaultScenarios); err != nil || !info.IsDir() {
			fmt.Fprintf(e.stderr, "evalrun %s: no %s folder here: run from the repository root or name scenario files or folders\n", cmd, defaultScenarios)
			return nil, exitUsage
		}
		args = []string{defaultScenarios}
	}
	var out []target
	seen := map[string]bool{}
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
		files, err := scenario.Discover(a)
		if err != nil {
			fmt.Fprintf(e.stderr, "evalrun %s: %v\n", cmd, err)
			return nil, exitUsage
		}
		for _, f := range files {
			// A file reached again (overlapping folders, a name given
			// twice, a link to a folder) runs once, where it came first.
			if id := scenario.Identity(f); !seen[id] {
				seen[id] = true
				out = append(out, target{path: f, root: root})
			}
		}
	}
	if len(out) == 0 {
		fmt.Fprintf(e.stderr, "evalrun %s: no scenario files in %v\n", cmd, args)
		return nil, exitUsage
	}
	return out, exitOK
}

// fileSize is the size of the file at path, 0 when it cannot tell.
func fileSize(path string) int64 {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return 0
	}
	return info.Size()
}
