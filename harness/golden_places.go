package harness

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/tapeloop/tapeloop/internal/pathtext"
)

// Place is a folder a run took place in, and the name a golden writes in
// its place, so that a golden does not depend on where the scenario's
// folder is or where the run made its workspace.
type Place struct {
	// Path is the folder, absolute; "" or the root is not replaced.
	Path string
	// Name stands for it in the golden: $WORK (the workspace) or
	// $SCENARIO_DIR (the scenario's folder).
	Name string
}

// The places' names.
const (
	PlaceWork        = "$WORK"
	PlaceScenarioDir = "$SCENARIO_DIR"
)

// ScenarioPlace is the Place of the folder of the scenario file at path;
// its Path is "" when it cannot be made absolute.
func ScenarioPlace(path string) Place {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		dir = ""
	}
	return Place{Path: dir, Name: PlaceScenarioDir}
}

// execPath is an error starting a program, naming it by the path
// exec.LookPath found ("fork/exec /usr/bin/sh: argument list too long").
var execPath = regexp.MustCompile(`fork/exec (/[^\s:'"]+):`)

// placeGolden returns the golden b with each place's folder, as given and
// with its links resolved, written by the place's name (the longest
// first, and only where the path is whole: pathtext.Replace), and each
// program exec.LookPath finds by its name written by that name alone:
// `fork/exec sh:` whichever folder of PATH holds sh.
func placeGolden(b []byte, places []Place) []byte {
	type pair struct{ path, name string }
	var pairs []pair
	for _, p := range places {
		if p.Path == "" || p.Path == string(filepath.Separator) {
			continue
		}
		pairs = append(pairs, pair{filepath.Clean(p.Path), p.Name})
		if real, err := filepath.EvalSymlinks(p.Path); err == nil && real != filepath.Clean(p.Path) {
			pairs = append(pairs, pair{real, p.Name})
		}
	}
	slices.SortStableFunc(pairs, func(a, b pair) int { return len(b.path) - len(a.path) })
	for _, p := range pairs {
		b = []byte(pathtext.Replace(string(b), p.path, p.name))
	}
	if !bytes.Contains(b, []byte("fork/exec /")) {
		return b
	}
	return execPath.ReplaceAllFunc(b, func(m []byte) []byte {
		path := string(execPath.FindSubmatch(m)[1])
		name := filepath.Base(path)
		if found, err := exec.LookPath(name); err != nil || found != path {
			return m
		}
		return []byte("fork/exec " + name + ":")
	})
}
