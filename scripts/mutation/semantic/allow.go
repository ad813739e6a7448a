package main

import (
	"slices"
	"strings"

	allowfile "github.com/tapeloop/tapeloop/scripts/mutation/internal/allowlist"
)

// allowlist holds the mutants allowed to live, by key, with the reason.
//
// Its file has one mutant a line:
//
//	PKGDIR/FILE.go KIND KEY  # why no test can kill it
//
// as the LIVED lines print them. The key does not hold the line, so moving
// code does not break an entry; changing the mutated code does, and the
// entry must then be checked again. Blank lines and lines starting with #
// are comments. An entry without a reason is an error: never list a mutant
// only because it is hard to test.
type allowlist map[string]string

// key returns the allowlist's key for m in package folder dir.
func (allowlist) key(dir string, m *Mutant) string {
	return dir + "/" + m.File + " " + m.Kind + " " + m.Key
}

// readAllow reads an allowlist file (allowfile.Read).
func readAllow(path string) (allowlist, error) {
	return allowfile.Read(path, "KIND")
}

// unused returns the entries for package folder dir that no lived mutant
// matched, sorted.
func (a allowlist) unused(dir string, matched []string) []string {
	var out []string
	for k := range a {
		if strings.HasPrefix(k, dir+"/") && !strings.Contains(strings.TrimPrefix(k, dir+"/"), "/") && !slices.Contains(matched, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
