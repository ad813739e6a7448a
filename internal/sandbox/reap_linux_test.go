//go:build linux

package sandbox

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// leaveHelpers runs, in b, a command that starts a helper in a session
// of its own and one so through a double fork, waits (through FIFOs)
// until each is in its own session, prints "ab" and exits; then it ends
// b. Each helper holds the command's stdout, so the pipe ends only when
// both are gone: leaveHelpers fails t when it does not end, and returns
// b's report.
func leaveHelpers(t *testing.T, b *Box) Report {
	t.Helper()
	for _, tool := range []string{"sh", "setsid", "mkfifo"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s here: %v", tool, err)
		}
	}
	// Each helper blocks for ever opening a FIFO nothing writes to.
	script := `mkfifo a b never
setsid sh -c 'echo a > a; read z < never' &
(setsid sh -c 'echo b > b; read z < never' &)
read x < a; read y < b; echo "$x$y"`
	cmd := exec.CommandContext(t.Context(), "sh", "-c", script)
	cmd.Dir = b.Dir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd.Stdout = w
	if err := b.Start(cmd); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	report := b.End()
	// The bound only turns a helper that outlived the run into a failure
	// instead of a hang: killed, the helpers close the pipe at once.
	if err := r.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if string(out) != "ab\n" {
		t.Errorf("the command printed %q, want \"ab\\n\"", out)
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a setsid helper outlived the run: its stdout is still open")
	} else if err != nil {
		t.Fatal(err)
	}
	return report
}

// TestFallbackReapsLeftovers: where the Box holds no Processes (forced
// here, as on a machine without namespaces), a helper the command starts
// in a session of its own, and one it starts so through a double fork,
// are still killed when the run ends, and Report.Left names them.
func TestFallbackReapsLeftovers(t *testing.T) {
	b, err := Open(&Config{Workspace: t.TempDir(), Home: t.TempDir(), Without: All})
	if err != nil {
		t.Fatal(err)
	}
	if b.Holds() != 0 {
		t.Fatalf("a Box without every guarantee holds %s", b.Holds())
	}
	report := leaveHelpers(t, b)
	if want := []string{"sh", "sh"}; !slices.Equal(report.Left, want) {
		t.Errorf("Report.Left = %q, want %q", report.Left, want)
	}
	if !report.Empty() {
		t.Errorf("processes left running are not attempts: %s", report)
	}
}

// TestUserNamespaceEndsLeftovers: without the privilege to make a PID
// namespace, a command is the first process of one made in an
// unprivileged user namespace of its own (forced here where the privilege
// is there), so the kernel kills its setsid helpers when it exits.
func TestUserNamespaceEndsLeftovers(t *testing.T) {
	if err := probeUserNS(); err != nil {
		t.Skipf("no unprivileged user namespace here: %v", err)
	}
	if st := Probe(); st.Held&Processes == 0 {
		t.Skipf("the sandbox here cannot hold processes: %s", st)
	}
	b, err := Open(&Config{Workspace: t.TempDir(), Home: t.TempDir(), Without: All &^ Processes})
	if err != nil {
		t.Fatal(err)
	}
	b.userNS = true
	if report := leaveHelpers(t, b); report.Left != nil {
		t.Errorf("Report.Left = %q, want nil: the kernel ends the helpers unseen", report.Left)
	}
	// The command's user namespace is not tapeloop's.
	b, err = Open(&Config{Workspace: t.TempDir(), Home: t.TempDir(), Without: All &^ Processes})
	if err != nil {
		t.Fatal(err)
	}
	b.userNS = true
	defer b.End()
	var theirs strings.Builder
	cmd := exec.CommandContext(t.Context(), "readlink", "/proc/self/ns/user")
	cmd.Stdout = &theirs
	if err := b.Start(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	ours, err := os.Readlink("/proc/self/ns/user")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(theirs.String()); got == "" || got == ours {
		t.Errorf("the command's user namespace is %q, tapeloop's %q: want one of its own", got, ours)
	}
}

// TestFallbackRequired: a guarantee both required and left out is
// unavailable.
func TestFallbackRequired(t *testing.T) {
	_, err := Open(&Config{Workspace: t.TempDir(), Home: t.TempDir(), Require: Network, Without: Network})
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("Open requiring the network and leaving it out: %v, want ErrUnavailable", err)
	}
}

// TestParseStat: proc(5)'s stat line, whose command name may hold spaces
// and parentheses.
func TestParseStat(t *testing.T) {
	for _, c := range []struct {
		pid  int
		line string
		want proc
		ok   bool
	}{
		{42, "42 (sleep) S 7 42 42 0 -1", proc{pid: 42, ppid: 7, pgid: 42, state: 'S', comm: "sleep"}, true},
		{43, "43 (a (b) c) Z 1 9 9 0", proc{pid: 43, ppid: 1, pgid: 9, state: 'Z', comm: "a (b) c"}, true},
		{44, "44 (cut) S 1", proc{}, false},
		{45, "45 no parentheses S 1 2", proc{}, false},
		{46, "46 (x) S one 2", proc{}, false},
	} {
		got, ok := parseStat(c.pid, []byte(c.line))
		if ok != c.ok || got != c.want {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}
