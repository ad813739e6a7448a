package scenario

import (
	"io/fs"
	"strings"
)

// IsStaleTemp reports whether a file name is that of the temporary file an
// update writes a golden through (".NAME.golden.yaml.tmpDIGITS", with a
// long NAME shortened, see internal/atomicfile's TempPrefix): one that
// outlives its update was left by a killed process.
func IsStaleTemp(name string) bool {
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
// which an update of a golden removes for its own golden.
func StaleTemps(dirs ...string) ([]string, error) {
	return filesUnder(dirs, func(_ string, d fs.DirEntry) bool { return d.Type().IsRegular() && IsStaleTemp(d.Name()) })
}
