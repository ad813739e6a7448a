package scenario

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// GoldenSuffix replaces .yaml in a scenario's file name to name its golden
// (.golden.yml replaces .yml).
const GoldenSuffix = ".golden.yaml"

// goldenSuffixes are the golden suffixes of the two scenario extensions.
var goldenSuffixes = []string{GoldenSuffix, ".golden.yml"}

// isGolden reports whether path names a golden file.
func isGolden(path string) bool {
	return strings.HasSuffix(path, goldenSuffixes[0]) || strings.HasSuffix(path, goldenSuffixes[1])
}

// GoldenPath returns the golden file of the scenario file at path: NAME.yaml
// has NAME.golden.yaml, NAME.yml has NAME.golden.yml.
func GoldenPath(path string) string {
	ext := scenarioExt(path)
	if ext == "" {
		ext = ".yaml"
	}
	return strings.TrimSuffix(path, ext) + ".golden" + ext
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
