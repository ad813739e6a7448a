package harness

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

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
	return newPlacer(places).apply(b)
}

// placer is placeGolden's replacements for a set of places: the folders
// and their names, the longest folder first.
type placer []placePair

type placePair struct{ path, name string }

// newPlacer resolves the places' folders' links once.
func newPlacer(places []Place) placer {
	var pairs placer
	for _, p := range places {
		if p.Path == "" || p.Path == string(filepath.Separator) {
			continue
		}
		pairs = append(pairs, placePair{filepath.Clean(p.Path), p.Name})
		if real, err := filepath.EvalSymlinks(p.Path); err == nil && real != filepath.Clean(p.Path) {
			pairs = append(pairs, placePair{real, p.Name})
		}
	}
	slices.SortStableFunc(pairs, func(a, b placePair) int { return len(b.path) - len(a.path) })
	return pairs
}

// lineLocal reports whether no folder holds a line break: then placing a
// text line by line (each piece whole lines) gives what placing it whole
// does, as a program's path in `fork/exec` ends a line's word too.
func (pl placer) lineLocal() bool {
	for _, p := range pl {
		if strings.ContainsRune(p.path, '\n') {
			return false
		}
	}
	return true
}

// apply is placeGolden of b: b itself when nothing is replaced.
func (pl placer) apply(b []byte) []byte {
	for _, p := range pl {
		if bytes.Contains(b, []byte(p.path)) {
			b = []byte(pathtext.Replace(string(b), p.path, p.name))
		}
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
