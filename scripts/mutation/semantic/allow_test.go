package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadAllowRefuses(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"a/b.go STATEMENT_REMOVE 0123456789\n", "no reason"},
		{"a/b.go STATEMENT_REMOVE  # why\n", `want "PKGDIR/FILE.go KIND KEY`},
		{"a/b.go K 1  # x\na/b.go K 1  # y\n", "listed twice"},
	} {
		path := filepath.Join(t.TempDir(), "allow.txt")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readAllow(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path+":") {
			t.Errorf("readAllow(%q) = %v, want an error with file:line and %q", tc.text, err, tc.want)
		}
	}
}

func TestAllowUnused(t *testing.T) {
	a := allowlist{"p/a.go K 1": "r", "p/a.go K 2": "r", "p/q/a.go K 3": "r", "other/a.go K 4": "r"}
	got := a.unused("p", []string{"p/a.go K 1"})
	if len(got) != 1 || got[0] != "p/a.go K 2" {
		t.Errorf("unused = %v, want [p/a.go K 2]", got)
	}
}
