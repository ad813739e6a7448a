package diffrecorder_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tapeloop/tapeloop/diffrecorder"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/workspace"
)

// diskRecorder returns a Recorder over a disk workspace in a new directory
// holding files (each 0644).
func diskRecorder(t *testing.T, files map[string]string) (*diffrecorder.Recorder, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := workspace.NewDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	rec, err := diffrecorder.New(d)
	if err != nil {
		t.Fatal(err)
	}
	return rec, dir
}

// must fails the test on err: the setup's system calls.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Skipf("cannot set up the workspace here: %v", err)
	}
}

// endTurn records effects touching paths and returns the turn's patch.
func endTurn(t *testing.T, rec *diffrecorder.Recorder, paths ...string) string {
	t.Helper()
	var effects []tools.Effect
	for _, p := range paths {
		effects = append(effects, tools.FileChange(tools.OpModify, p, 0))
	}
	rec.Record(effects)
	d, err := rec.EndTurn()
	if err != nil {
		t.Fatalf("EndTurn: %v", err)
	}
	return d.String()
}

// TestLinksAndSpecialFilesShowInTheDiff: every entry an agent can make in
// a disk workspace shows in the turn's diff as what it is. A symbolic link
// is a file of mode 120000 holding its target as written, as git shows it,
// whether it leads out of the workspace or nowhere, and is never followed;
// a named pipe is named by its kind and never opened; a second name of a
// file is a hard link to the first; a name of a file outside shows no
// content; a mode change is git's old mode/new mode.
func TestLinksAndSpecialFilesShowInTheDiff(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	must(t, os.WriteFile(outside, []byte("s3cret\n"), 0o644))
	rec, dir := diskRecorder(t, map[string]string{"a.txt": "alpha\n", "run.sh": "echo hi\n", "gone": "bye\n"})
	at := func(name string) string { return filepath.Join(dir, name) }

	must(t, os.Symlink("/etc/passwd", at("esc")))
	must(t, os.Symlink("nowhere/x", at("dangling")))
	must(t, syscall.Mkfifo(at("p"), 0o644))
	must(t, os.Link(at("a.txt"), at("b.txt")))
	must(t, os.Link(outside, at("out")))
	must(t, os.Chmod(at("run.sh"), 0o755))
	must(t, os.Remove(at("gone")))
	must(t, os.Symlink("a.txt", at("gone")))
	got := endTurn(t, rec, "esc", "dangling", "p", "a.txt", "b.txt", "out", "run.sh", "gone")
	want := `diff --git a/b.txt b/b.txt
new hard link to a.txt
diff --git a/dangling b/dangling
new file mode 120000
--- /dev/null
+++ b/dangling
@@ -0,0 +1 @@
+nowhere/x
\ No newline at end of file
diff --git a/esc b/esc
new file mode 120000
--- /dev/null
+++ b/esc
@@ -0,0 +1 @@
+/etc/passwd
\ No newline at end of file
diff --git a/gone b/gone
deleted file mode 100644
--- a/gone
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/gone b/gone
new file mode 120000
--- /dev/null
+++ b/gone
@@ -0,0 +1 @@
+a.txt
\ No newline at end of file
diff --git a/out b/out
new hard link to a file outside the workspace
diff --git a/p b/p
new named pipe
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
`
	if got != want {
		t.Errorf("turn 1:\n%s\nwant:\n%s", got, want)
	}

	// A link retargeted, a pipe and a link removed, a second name gone.
	must(t, os.Remove(at("esc")))
	must(t, os.Symlink("../../etc/shadow", at("esc")))
	must(t, os.Remove(at("p")))
	must(t, os.Remove(at("dangling")))
	must(t, os.Remove(at("b.txt")))
	got = endTurn(t, rec, "esc", "p", "dangling", "a.txt", "b.txt")
	want = `diff --git a/b.txt b/b.txt
deleted hard link to a.txt
diff --git a/dangling b/dangling
deleted file mode 120000
--- a/dangling
+++ /dev/null
@@ -1 +0,0 @@
-nowhere/x
\ No newline at end of file
diff --git a/esc b/esc
--- a/esc
+++ b/esc
@@ -1 +1 @@
-/etc/passwd
\ No newline at end of file
+../../etc/shadow
\ No newline at end of file
diff --git a/p b/p
deleted named pipe
`
	if got != want {
		t.Errorf("turn 2:\n%s\nwant:\n%s", got, want)
	}
	if b, _ := os.ReadFile(outside); string(b) != "s3cret\n" {
		t.Errorf("the file outside now holds %q", b)
	}
}

// TestGitAppliesLinksAndModes: the sections git has a format for (a
// symbolic link, a mode change) are applied by git apply as git would
// have made them.
func TestGitAppliesLinksAndModes(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	rec, dir := diskRecorder(t, map[string]string{"run.sh": "echo hi\n"})
	must(t, os.Symlink("../outside/x", filepath.Join(dir, "esc")))
	must(t, os.Chmod(filepath.Join(dir, "run.sh"), 0o755))
	patch := endTurn(t, rec, "esc", "run.sh")

	tree := t.TempDir()
	if err := os.WriteFile(filepath.Join(tree, "run.sh"), []byte("echo hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(git, "apply", "-")
	cmd.Dir = tree
	cmd.Stdin = strings.NewReader(patch)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s\npatch:\n%s", err, out, patch)
	}
	if target, err := os.Readlink(filepath.Join(tree, "esc")); err != nil || target != "../outside/x" {
		t.Errorf("esc after git apply: %q, %v; want a link to ../outside/x", target, err)
	}
	if fi, err := os.Stat(filepath.Join(tree, "run.sh")); err != nil || fi.Mode()&0o100 == 0 {
		t.Errorf("run.sh after git apply: %v, %v; want executable", fi.Mode(), err)
	}
}
