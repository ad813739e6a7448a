// Package allowlist reads the mutation engines' allowlists: files of
// equivalent mutants, one a line, "PKGDIR/FILE.go KIND KEY  # reason".
package allowlist

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// Read reads the allowlist file at path into a map from "PKGDIR/FILE.go
// KIND KEY" to its reason. kind names the middle field in the error for a
// malformed line ("MUTATOR" for gremlins, "KIND" for the semantic engine).
// Blank lines and lines starting with # are comments; an entry that is not
// three fields with a .go file first, has no reason, or is listed twice is
// an error naming path:line.
func Read(path, kind string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		entry, reason, _ := strings.Cut(line, "#")
		fields := strings.Fields(entry)
		if len(fields) != 3 || !strings.HasSuffix(fields[0], ".go") {
			return nil, fmt.Errorf("%s:%d: want \"PKGDIR/FILE.go %s KEY  # reason\", got %q", path, n, kind, line)
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
