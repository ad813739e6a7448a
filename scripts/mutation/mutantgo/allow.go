package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	allowfile "github.com/tapeloop/tapeloop/scripts/mutation/internal/allowlist"
	"github.com/tapeloop/tapeloop/scripts/mutation/internal/linekey"
)

// allowlist holds gremlins' mutants allowed to live, with the reason, by
// "PKGDIR/FILE.go MUTATOR KEY" (KEY from linekey).
//
// Its file (scripts/mutation/allow.txt) has one mutant a line:
//
//	PKGDIR/FILE.go MUTATOR KEY  # why no test can kill it
//
// as classify's "allow as:" lines print them. Blank lines and lines starting
// with # are comments. An entry without a reason, or listed twice, is an
// error.
type allowlist map[string]string

// readAllow reads an allowlist file (allowfile.Read).
func readAllow(path string) (allowlist, error) {
	return allowfile.Read(path, "MUTATOR")
}

// classify reads gremlins' lived mutants from in, one a line as
// "PKGDIR/FILE.go:LINE:COL MUTATOR", keys each from the source under root
// (the module the run mutated), and writes one line for each to out:
//
//	allowed PKGDIR/FILE.go:LINE:COL MUTATOR KEY
//	lived PKGDIR/FILE.go:LINE:COL MUTATOR KEY
//
// allowed when a's entry "PKGDIR/FILE.go MUTATOR KEY" lists it. A mutant
// whose place cannot be keyed (its file is gone, or no token starts there)
// is lived, with KEY "?", and the reason on errOut.
func classify(a allowlist, root string, in io.Reader, out, errOut io.Writer) error {
	files := map[string]*linekey.File{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			return fmt.Errorf("want \"PKGDIR/FILE.go:LINE:COL MUTATOR\", got %q", sc.Text())
		}
		at, mutator := fields[0], fields[1]
		key, err := keyOf(files, root, at)
		if err != nil {
			fmt.Fprintf(errOut, "mutantgo: cannot key %s: %v\n", at, err)
			key = "?"
		}
		verdict := "lived"
		if file, _, _ := strings.Cut(at, ":"); key != "?" {
			if _, ok := a[file+" "+mutator+" "+key]; ok {
				verdict = "allowed"
			}
		}
		fmt.Fprintf(out, "%s %s %s %s\n", verdict, at, mutator, key)
	}
	return sc.Err()
}

// keyOf returns the key of the place "PKGDIR/FILE.go:LINE:COL" in the source
// under root, parsing each file once (kept in files).
func keyOf(files map[string]*linekey.File, root, at string) (string, error) {
	parts := strings.Split(at, ":")
	if len(parts) != 3 {
		return "", fmt.Errorf("want FILE:LINE:COL, got %q", at)
	}
	line, err1 := strconv.Atoi(parts[1])
	col, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil {
		return "", fmt.Errorf("want FILE:LINE:COL, got %q", at)
	}
	f, ok := files[parts[0]]
	if !ok {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(parts[0])))
		if err != nil {
			return "", err
		}
		if f, err = linekey.Parse(parts[0], src); err != nil {
			return "", err
		}
		files[parts[0]] = f
	}
	return f.Key(line, col)
}
