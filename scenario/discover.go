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

// filesUnder walks the folders and returns the paths keep accepts, sorted,
// each file once (unique).
func filesUnder(dirs []string, keep func(path string, d fs.DirEntry) bool) ([]string, error) {
	var out []string
	for _, dir := range dirs {
		err := filepath.WalkDir(walkRoot(dir), func(path string, d fs.DirEntry, err error) error {
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
	return unique(out), nil
}

// Discover returns the scenario files named by paths: files as given, and
// every *.yaml and *.yml under a folder (a symbolic link to one too)
// except goldens and files under testdata, fixtures or hidden folders,
// sorted. A file reached through several paths (a folder and its
// subfolder, a name given twice, a folder and a link to it) is returned
// once, under its first name in that order (see Identity). A YAML file
// found under a folder may still not be a scenario (Load says
// ErrNotScenario).
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
		err = filepath.WalkDir(walkRoot(p), func(path string, d fs.DirEntry, err error) error {
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
	return unique(out), nil
}

// walkRoot is the root to walk for the folder dir: dir, or dir with a
// separator after it when dir is a symbolic link (filepath.WalkDir would
// not follow it), so the folder it names is walked under dir's name.
func walkRoot(dir string) string {
	if info, err := os.Lstat(dir); err == nil && info.Mode()&fs.ModeSymlink != 0 && !strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + string(filepath.Separator)
	}
	return dir
}

// Identity returns what tells scenario files apart where Discover and
// Orphans return each once: the file's absolute, cleaned path with the
// symbolic links of its folder resolved. The file's own name is kept, so a
// link to a scenario file is a scenario of its own (it has its own
// golden). A folder that cannot be resolved is left as it is.
func Identity(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	dir, name := filepath.Split(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(real, name)
	}
	return abs
}

// unique returns paths without the ones whose Identity an earlier path
// has, in order.
func unique(paths []string) []string {
	seen := make(map[string]bool, len(paths))
	out := paths[:0]
	for _, p := range paths {
		if id := Identity(p); !seen[id] {
			seen[id] = true
			out = append(out, p)
		}
	}
	return out
}
