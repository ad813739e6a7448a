package harness

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tapeloop/tapeloop/internal/atomicfile"
	"github.com/tapeloop/tapeloop/internal/regularfile"
	"github.com/tapeloop/tapeloop/internal/udiff"
)

// GoldenSuffix replaces .yaml in a scenario's file name to name its golden
// (.golden.yml replaces .yml).
const GoldenSuffix = ".golden.yaml"

// MaxGoldenSize bounds a golden file, counted on the bytes read: a larger one
// (or one that is not a regular file) is refused when compared, and replaced
// by UpdateGolden.
const MaxGoldenSize = 64 << 20

// goldenSuffixes are the golden suffixes of the two scenario extensions.
var goldenSuffixes = []string{GoldenSuffix, ".golden.yml"}

// isGolden reports whether path names a golden file.
func isGolden(path string) bool {
	return strings.HasSuffix(path, goldenSuffixes[0]) || strings.HasSuffix(path, goldenSuffixes[1])
}

// ErrNoGolden is wrapped by the error for a scenario whose golden file is
// missing: goldens are never created silently.
var ErrNoGolden = errors.New("missing golden file")

// GoldenPath returns the golden file of the scenario file at path: NAME.yaml
// has NAME.golden.yaml, NAME.yml has NAME.golden.yml.
func GoldenPath(path string) string {
	ext := scenarioExt(path)
	if ext == "" {
		ext = ".yaml"
	}
	return strings.TrimSuffix(path, ext) + ".golden" + ext
}

// CompareGolden compares the outcome with the golden file at path. It returns
// nil when they are byte-identical, an error wrapping ErrNoGolden when the file
// does not exist, and otherwise an error showing the first difference in
// context (- golden, + outcome).
func CompareGolden(path string, got []byte) error {
	want, err := readGolden(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w %s: run `evalrun replay --update` (or `go test ./scenarios -update`) to write it, then review it", ErrNoGolden, path)
	}
	if err != nil {
		return err
	}
	if bytes.Equal(want, got) {
		return nil
	}
	return fmt.Errorf("the outcome differs from the golden file %s (- golden, + outcome; first difference):\n%s", path, FirstDifference(string(want), string(got)))
}

// FirstDifference renders the first change between want and got as a
// unified-diff hunk with up to three lines of context, numbered as lines of
// the whole texts; "" when they are equal. Its cost is linear in their size,
// so comparing with a golden far out of date stays fast.
func FirstDifference(want, got string) string {
	return udiff.FirstHunk(want, got)
}

// readGolden reads a golden file: a regular file of at most MaxGoldenSize
// bytes. The error names the file.
func readGolden(path string) ([]byte, error) {
	return regularfile.Read(path, MaxGoldenSize)
}

// UpdateGolden writes the golden file atomically if its content changed and
// reports whether it did. A golden that is not a regular file (a named pipe,
// a link to a device) is refused, not replaced; one over MaxGoldenSize is
// replaced. Temporary files that interrupted updates of the same golden left
// beside it are removed first.
func UpdateGolden(path string, got []byte) (bool, error) {
	removeStaleTemps(path)
	old, err := readGolden(path)
	switch {
	case err == nil && bytes.Equal(old, got):
		return false, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, regularfile.ErrTooLarge):
		return false, err
	}
	if err := atomicfile.WriteFile(path, got); err != nil {
		return false, err
	}
	return true, nil
}

// Orphans returns the golden files under the given folders that no scenario
// file refers to, sorted.
func Orphans(dirs ...string) ([]string, error) {
	return filesUnder(dirs, func(path string, d fs.DirEntry) bool {
		if d.IsDir() || !isGolden(path) {
			return false
		}
		ext := scenarioExt(path)
		_, err := os.Stat(strings.TrimSuffix(path, ".golden"+ext) + ext)
		return errors.Is(err, fs.ErrNotExist)
	})
}

// filesUnder walks the folders and returns the paths keep accepts, sorted.
func filesUnder(dirs []string, keep func(path string, d fs.DirEntry) bool) ([]string, error) {
	var out []string
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if keep(path, d) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// Discover returns the scenario files named by paths: files as given, and
// every *.yaml and *.yml under a folder except goldens and files under
// testdata, fixtures or hidden folders, sorted. A YAML file found under a
// folder may still not be a scenario (Load says ErrNotScenario).
func Discover(paths ...string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && (d.Name() == "testdata" || d.Name() == "fixtures" || strings.HasPrefix(d.Name(), ".")) {
					return filepath.SkipDir
				}
				return nil
			}
			if scenarioExt(path) != "" && !isGolden(path) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}
