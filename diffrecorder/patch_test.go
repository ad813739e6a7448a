package diffrecorder_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/diffrecorder"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/workspace"
)

// randomText returns up to max lines drawn from a small vocabulary (so that
// lines repeat, as they do in code), with or without a final newline.
func randomText(r *rand.Rand, max int) string {
	n := r.IntN(max + 1)
	var lines []string
	for range n {
		lines = append(lines, randomLine(r))
	}
	s := strings.Join(lines, "\n")
	if n > 0 && r.IntN(2) == 0 {
		s += "\n"
	}
	return s
}

func randomLine(r *rand.Rand) string {
	words := []string{"", "}", "{", "return nil", "x := 1", "if err != nil {", "\tfoo()", "// note", "bar", "baz"}
	if r.IntN(4) == 0 {
		return fmt.Sprintf("line %d", r.IntN(1000))
	}
	return words[r.IntN(len(words))]
}

// randomEdit applies a few random line insertions, deletions and
// replacements to s, and may flip its final newline.
func randomEdit(r *rand.Rand, s string) string {
	lines := strings.Split(s, "\n")
	trailing := strings.HasSuffix(s, "\n")
	if trailing || s == "" {
		lines = lines[:len(lines)-1]
	}
	for range 1 + r.IntN(4) {
		i := r.IntN(len(lines) + 1)
		switch r.IntN(3) {
		case 0:
			lines = append(lines[:i], append([]string{randomLine(r)}, lines[i:]...)...)
		case 1:
			if i < len(lines) {
				lines = append(lines[:i], lines[i+1:]...)
			}
		case 2:
			if i < len(lines) {
				lines[i] = randomLine(r)
			}
		}
	}
	if r.IntN(5) == 0 {
		trailing = !trailing
	}
	out := strings.Join(lines, "\n")
	if trailing && len(lines) > 0 {
		out += "\n"
	}
	return out
}

// TestPatchReproducesTurn renders one turn of a few hundred random edits,
// creations, deletions and renames, applies it with patch -p1 (and git apply
// when git is installed) to a copy of the old tree, and requires the new tree
// reproduced exactly.
func TestPatchReproducesTurn(t *testing.T) {
	patchCmd, err := exec.LookPath("patch")
	if err != nil {
		t.Skip("patch is not installed")
	}
	r := rand.New(rand.NewPCG(1, 2))
	w := workspace.NewMemory()
	const n = 300
	old := map[string]string{}
	for i := range n {
		p := fmt.Sprintf("d%d/f%03d.txt", i%7, i)
		if i%10 == 0 {
			continue // created in the turn
		}
		old[p] = randomText(r, 40)
		if err := w.WriteFile(p, []byte(old[p])); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := diffrecorder.New(w)
	if err != nil {
		t.Fatal(err)
	}
	var effects []tools.Effect
	for i := range n {
		p := fmt.Sprintf("d%d/f%03d.txt", i%7, i)
		var err error
		switch {
		case i%10 == 0:
			err = w.WriteFile(p, []byte(randomText(r, 20)))
			effects = append(effects, tools.FileChange(tools.OpCreate, p, 0))
		case i%10 == 1:
			err = w.Remove(p)
			effects = append(effects, tools.FileChange(tools.OpDelete, p, 0))
		case i%10 == 2:
			to := fmt.Sprintf("moved/f%03d.txt", i)
			err = w.Rename(p, to)
			if err == nil && i%20 == 2 {
				err = w.WriteFile(to, []byte(randomEdit(r, old[p])))
			}
			effects = append(effects, tools.FileRename(p, to, 0))
		default:
			err = w.WriteFile(p, []byte(randomEdit(r, old[p])))
			effects = append(effects, tools.FileChange(tools.OpModify, p, 0))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	rec.Record(effects)
	d, err := rec.EndTurn()
	if err != nil {
		t.Fatal(err)
	}
	want, err := workspace.Snapshot(w)
	if err != nil {
		t.Fatal(err)
	}
	patch := d.String()

	apply := func(t *testing.T, args ...string) {
		dir := t.TempDir()
		for p, data := range old {
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, p), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(patch)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		got := map[string]string{}
		filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.Type().IsRegular() {
				rel, _ := filepath.Rel(dir, p)
				data, _ := os.ReadFile(p)
				got[filepath.ToSlash(rel)] = string(data)
			}
			return err
		})
		for p, data := range want {
			if got[p] != string(data) {
				t.Errorf("%s: got %q, want %q\ndiff:\n%s", p, got[p], data, fileDiffOf(d, p))
			}
		}
		for p := range got {
			if _, ok := want[p]; !ok && !strings.HasSuffix(p, ".orig") {
				t.Errorf("%s: left behind\ndiff:\n%s", p, fileDiffOf(d, p))
			}
		}
	}
	t.Run("patch", func(t *testing.T) { apply(t, patchCmd, "-p1", "--quiet", "--force", "--batch", "--fuzz=0") })
	t.Run("git apply", func(t *testing.T) {
		git, err := exec.LookPath("git")
		if err != nil {
			t.Skip("git is not installed")
		}
		apply(t, git, "apply", "-p1", "--unsafe-paths", "-")
	})
}

func fileDiffOf(d diffrecorder.TurnDiff, p string) string {
	for _, f := range d.Files {
		if f.Path == p || f.From == p {
			return f.Diff
		}
	}
	return "(none)"
}

// TestPatchEmptyFile checks that patch -p1 and git apply create and delete
// empty files from the header-only sections.
func TestPatchEmptyFile(t *testing.T) {
	w, rec := newRecorder(t, map[string]string{"gone": ""})
	w.Remove("gone")
	w.WriteFile("sub/empty", nil)
	rec.Record([]tools.Effect{tools.FileChange(tools.OpDelete, "gone", 0), tools.FileChange(tools.OpCreate, "sub/empty", 0)})
	d, err := rec.EndTurn()
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"patch", "-p1", "--quiet", "--batch"}, {"git", "apply", "-"}} {
		t.Run(args[0], func(t *testing.T) {
			bin, err := exec.LookPath(args[0])
			if err != nil {
				t.Skipf("%s is not installed", args[0])
			}
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "gone"), nil, 0o644)
			cmd := exec.Command(bin, args[1:]...)
			cmd.Dir = dir
			cmd.Stdin = strings.NewReader(d.String())
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s\n%s", args[0], err, out, d)
			}
			if _, err := os.Stat(filepath.Join(dir, "gone")); !os.IsNotExist(err) {
				t.Errorf("gone still exists: %v", err)
			}
			if data, err := os.ReadFile(filepath.Join(dir, "sub", "empty")); err != nil || !bytes.Equal(data, []byte{}) {
				t.Errorf("sub/empty = %q, %v", data, err)
			}
		})
	}
}
