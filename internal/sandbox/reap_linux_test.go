//go:build linux

package sandbox

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// TestFallbackReapsLeftovers: where the Box holds no Processes (forced
// here, as on a machine without namespaces), a helper the command starts
// in a session of its own, and one it starts so through a double fork,
// are still killed when the run ends, and Report.Left names them. Each
// helper holds the command's stdout: the pipe ends only when both are
// gone. The command waits, through FIFOs, until each helper is in its
// own session before it exits.
func TestFallbackReapsLeftovers(t *testing.T) {
	for _, tool := range []string{"sh", "setsid", "mkfifo"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s here: %v", tool, err)
		}
	}
	b, err := Open(&Config{Workspace: t.TempDir(), Home: t.TempDir(), Without: All})
	if err != nil {
		t.Fatal(err)
	}
	if b.Holds() != 0 {
		t.Fatalf("a Box without every guarantee holds %s", b.Holds())
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
	if want := []string{"sh", "sh"}; !slices.Equal(report.Left, want) {
		t.Errorf("Report.Left = %q, want %q", report.Left, want)
	}
	if !report.Empty() {
		t.Errorf("processes left running are not attempts: %s", report)
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
