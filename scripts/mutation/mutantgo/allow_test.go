package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClassifyKeepsAnEntryWhenCodeMoves keys a lived mutant of one version
// of a file, allows it under that key, and classifies the same mutant in
// versions where the code moved (allowed still) or changed (lived again).
func TestClassifyKeepsAnEntryWhenCodeMoves(t *testing.T) {
	const v1 = "package p\n\nfunc Cap(n int) int {\n\tif n > 10 {\n\t\treturn 10\n\t}\n\treturn n\n}\n"
	root := t.TempDir()
	write := func(src string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, "p"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "p", "cap.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(a allowlist, in string) (string, string) {
		t.Helper()
		var out, errOut strings.Builder
		if err := classify(a, root, strings.NewReader(in), &out, &errOut); err != nil {
			t.Fatal(err)
		}
		return out.String(), errOut.String()
	}
	write(v1)
	out, _ := run(allowlist{}, "p/cap.go:4:7 CONDITIONALS_BOUNDARY\n")
	f := strings.Fields(out)
	if len(f) != 4 || f[0] != "lived" || f[1] != "p/cap.go:4:7" || f[3] == "?" {
		t.Fatalf("classify with an empty allowlist: %q; want lived p/cap.go:4:7 CONDITIONALS_BOUNDARY KEY", out)
	}
	allow := allowlist{"p/cap.go CONDITIONALS_BOUNDARY " + f[3]: "n > 10 and n >= 10 both return 10"}

	for _, tc := range []struct {
		name, src, at, mutator, want string
	}{
		{"as keyed", v1, "p/cap.go:4:7", "CONDITIONALS_BOUNDARY", "allowed"},
		{"another mutator at the place", v1, "p/cap.go:4:7", "CONDITIONALS_NEGATION", "lived"},
		{"lines added above", strings.Replace(v1, "package p\n", "package p\n\n// Limit is ten.\nconst Limit = 10\n", 1), "p/cap.go:7:7", "CONDITIONALS_BOUNDARY", "allowed"},
		{"re-indented", strings.Replace(v1, "\tif n > 10 {\n\t\treturn 10\n\t}\n", "\t{\n\t\tif n > 10 {\n\t\t\treturn 10\n\t\t}\n\t}\n", 1), "p/cap.go:5:8", "CONDITIONALS_BOUNDARY", "allowed"},
		{"the line changed", strings.Replace(v1, "n > 10", "n > 11", 1), "p/cap.go:4:7", "CONDITIONALS_BOUNDARY", "lived"},
		{"no token there", v1, "p/cap.go:4:8", "CONDITIONALS_BOUNDARY", "lived"},
	} {
		write(tc.src)
		out, errOut := run(allow, tc.at+" "+tc.mutator+"\n")
		if got := strings.Fields(out); len(got) != 4 || got[0] != tc.want || got[1] != tc.at || got[2] != tc.mutator {
			t.Errorf("%s: %q; want %s %s %s KEY", tc.name, out, tc.want, tc.at, tc.mutator)
		}
		if tc.name == "no token there" && !strings.Contains(errOut, "p/cap.go:4:8") {
			t.Errorf("%s: stderr %q does not name the place", tc.name, errOut)
		}
	}
}

func TestReadAllow(t *testing.T) {
	for _, tc := range []struct {
		name, text, err string
	}{
		{"entries and comments", "# header\n\np/a.go ARITHMETIC_BASE 0123456789:3  # a size hint only\np/a.go ARITHMETIC_BASE 0123456789-2:3  # the twin line's\n", ""},
		{"no reason", "p/a.go ARITHMETIC_BASE 0123456789:3\n", "allow.txt:1: p/a.go ARITHMETIC_BASE 0123456789:3 has no reason"},
		{"old line key", "\np/a.go:12:3 ARITHMETIC_BASE  # why\n", "allow.txt:2: want"},
		{"twice", "p/a.go X k:1  # one\np/a.go X k:1  # two\n", "allow.txt:2: p/a.go X k:1 is listed twice"},
	} {
		path := filepath.Join(t.TempDir(), "allow.txt")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := readAllow(path)
		if tc.err == "" {
			if err != nil || len(a) != 2 || a["p/a.go ARITHMETIC_BASE 0123456789-2:3"] != "the twin line's" {
				t.Errorf("%s: %v, %v", tc.name, a, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v; want one holding %q", tc.name, err, tc.err)
		}
	}
}

// TestAllowlistFileReads reads scripts/mutation/allow.txt itself: every
// entry in the keyed form, with a reason, listed once.
func TestAllowlistFileReads(t *testing.T) {
	a, err := readAllow(filepath.Join("..", "allow.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a) == 0 {
		t.Error("scripts/mutation/allow.txt lists no mutant")
	}
}
