//go:build linux

package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestRefusedWritesReported: a command's changes outside its workspace
// and home are refused and listed by the path it saw, absolute or
// relative to its working directory; its changes inside, and a write to
// /dev/null, are made and not listed.
func TestRefusedWritesReported(t *testing.T) {
	if st := Probe(); st.Held&Files == 0 {
		t.Skipf("the sandbox here cannot hold files: %s", st)
	}
	if len(writeCalls) == 0 {
		t.Skip("no system call table for this architecture: refused writes are not listed")
	}
	work, home := t.TempDir(), t.TempDir()
	b, err := Open(&Config{Workspace: work, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	script := `echo in > inside.txt; echo h > $HOME/h.txt; echo x > /dev/null
echo out > /etc/tapeloop-probe; mkdir /opt/tapeloop-probe; cd /usr && echo rel > tapeloop-rel
cd /tapeloop/work && mkdir sub && ln inside.txt /etc/tapeloop-link; exit 0`
	cmd := exec.CommandContext(t.Context(), "sh", "-c", script)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + HomeDir}
	if err := b.Start(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	r := b.End()
	want := []string{"link /etc/tapeloop-link", "mkdir /opt/tapeloop-probe", "write /etc/tapeloop-probe", "write /usr/tapeloop-rel"}
	if !slices.Equal(r.Files, want) {
		t.Errorf("refused writes: %q, want %q", r.Files, want)
	}
	for _, p := range []string{filepath.Join(work, "inside.txt"), filepath.Join(home, "h.txt"), filepath.Join(work, "sub")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("a change inside was not made: %v", err)
		}
	}
	for _, p := range []string{"/etc/tapeloop-probe", "/opt/tapeloop-probe", "/usr/tapeloop-rel", "/etc/tapeloop-link"} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s reached the disk: %v", p, err)
		}
	}
}

// TestWriteResolve: paths relative to a directory the kernel names from
// tapeloop's side (beneath the Box's root) become the command's.
func TestWriteResolve(t *testing.T) {
	w := &writeWatch{root: "/tmp/tapeloop-root-1", writable: []string{WorkDir, HomeDir}}
	for _, c := range []struct{ path, verb string }{
		{"/tapeloop/work/a", "write"}, {"/tapeloop/home", "mkdir"}, {"/dev/null", "write"},
	} {
		if !w.allowed(c.path, c.verb) {
			t.Errorf("%s %s refused", c.verb, c.path)
		}
	}
	for _, c := range []struct{ path, verb string }{
		{"/tapeloop/workshop", "write"}, {"/dev/x", "create"}, {"/etc/hosts", "write"},
	} {
		if w.allowed(c.path, c.verb) {
			t.Errorf("%s %s allowed", c.verb, c.path)
		}
	}
	if got := w.resolve(0, -1, "/etc/../etc/hosts"); got != "/etc/hosts" {
		t.Errorf("an absolute path: %s", got)
	}
}
