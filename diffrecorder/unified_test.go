package diffrecorder

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/workspace"
)

// TestManyDistinctLines checks go-diff's line mode past 65,536 distinct
// lines, where versions before v1.3 overflowed their rune encoding.
func TestManyDistinctLines(t *testing.T) {
	const n = 70_000
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	old := sb.String()
	new := strings.Replace(old, "line 100\n", "changed\n", 1)
	new = strings.Replace(new, "line 69000\n", "line 69000\nadded\n", 1)
	d := fileDiff("big", "big", &workspace.Entry{Data: []byte(old)}, &workspace.Entry{Data: []byte(new)}, maxDistinctLines)
	want := `diff --git a/big b/big
--- a/big
+++ b/big
@@ -98,7 +98,7 @@
 line 97
 line 98
 line 99
-line 100
+changed
 line 101
 line 102
 line 103
@@ -68999,6 +68999,7 @@
 line 68998
 line 68999
 line 69000
+added
 line 69001
 line 69002
 line 69003
`
	if d.Diff != want {
		t.Errorf("diff:\n%s\nwant:\n%s", d.Diff, want)
	}
	patchCmd, err := exec.LookPath("patch")
	if err != nil {
		t.Skip("patch is not installed; the diff was checked, not applied")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(patchCmd, "-p1", "--quiet", "--batch", "--fuzz=0")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(d.Diff)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "big")); string(got) != new {
		t.Error("patch did not reproduce the new file")
	}
}

func TestQuote(t *testing.T) {
	tests := map[string]string{
		"a/plain.go":  "a/plain.go",
		"a/my file":   "a/my file",
		`a/q"x`:       `"a/q\"x"`,
		`a/back\`:     `"a/back\\"`,
		"a/tab\tnl\n": `"a/tab\tnl\n"`,
		"a/café":      `"a/caf\303\251"`,
		"a/\x01\x7f":  `"a/\001\177"`,
		"a/del\x7f":   `"a/del\177"`, // DEL alone is reason enough to quote
	}
	for in, want := range tests {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestUnified(t *testing.T) {
	if got := Unified("a\nb\n", "a\nb\n"); got != "" {
		t.Errorf("Unified of equal texts = %q, want \"\"", got)
	}
	want := "@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
	if got := Unified("a\nb\n", "a\nc\n"); got != want {
		t.Errorf("Unified = %q, want %q", got, want)
	}
}
