package harness

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// isStaleTemp reports whether a file name is that of the temporary file an
// update writes a golden through (".NAME.golden.yaml.tmpDIGITS", see
// internal/atomicfile): one that outlives its update was left by a killed
// process.
func isStaleTemp(name string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	for _, suffix := range goldenSuffixes {
		i := strings.LastIndex(name, suffix+".tmp")
		if i <= 1 {
			continue
		}
		digits := name[i+len(suffix)+len(".tmp"):]
		if digits != "" && strings.Trim(digits, "0123456789") == "" {
			return true
		}
	}
	return false
}

// StaleTemps returns the temporary files that interrupted golden updates left
// under the given folders, sorted. The goldens themselves are whole (an
// update renames its temporary file over the golden); these are only litter,
// which UpdateGolden removes for its own golden.
func StaleTemps(dirs ...string) ([]string, error) {
	var out []string
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && isStaleTemp(d.Name()) {
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

// removeStaleTemps removes the temporary files interrupted updates of the
// golden at path left beside it.
func removeStaleTemps(path string) {
	base := "." + filepath.Base(path) + ".tmp"
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), base) && e.Type().IsRegular() && isStaleTemp(e.Name()) {
			os.Remove(filepath.Join(filepath.Dir(path), e.Name()))
		}
	}
}
