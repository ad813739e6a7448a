package main

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
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

// readAllow reads an allowlist file.
func readAllow(path string) (allowlist, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a := allowlist{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		entry, reason, _ := strings.Cut(line, "#")
		fields := strings.Fields(entry)
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s:%d: want \"PKGDIR/FILE.go KIND KEY  # reason\", got %q", path, n, line)
		}
		if strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("%s:%d: %s has no reason after #", path, n, strings.Join(fields, " "))
		}
		k := strings.Join(fields, " ")
		if _, dup := a[k]; dup {
			return nil, fmt.Errorf("%s:%d: %s is listed twice", path, n, k)
		}
		a[k] = strings.TrimSpace(reason)
	}
	return a, sc.Err()
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
