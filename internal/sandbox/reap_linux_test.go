//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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
		{42, "42 (sleep) S 7 42 40 0 -1", proc{pid: 42, ppid: 7, pgid: 42, sid: 40, state: 'S', comm: "sleep"}, true},
		{43, "43 (a (b) c) Z 1 9 9 0", proc{pid: 43, ppid: 1, pgid: 9, sid: 9, state: 'Z', comm: "a (b) c"}, true},
		{44, "44 (cut) S 1 2", proc{}, false},
		{45, "45 no parentheses S 1 2 3", proc{}, false},
		{46, "46 (x) S one 2 3", proc{}, false},
		{47, "47 (x) S 1 2 three", proc{}, false},
	} {
		got, ok := parseStat(c.pid, []byte(c.line))
		if ok != c.ok || got != c.want {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// needTools skips t where a program the test's commands run is missing.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s here: %v", tool, err)
		}
	}
}

// alive reports whether pid is a process (a zombie included) and its
// state as /proc shows it.
func alive(pid int) (byte, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	p, ok := parseStat(pid, b)
	return p.state, ok
}

// escapees runs, in b, a command that leaves two helpers, each in a
// session of its own through a double fork, and returns their pids once
// the command has exited: one that starts from an empty environment (env
// -i, so without the Box's mark) and blocks for ever, and one that exits
// at once, which is then a zombie of this process's (waited for with
// WNOWAIT, so that it stays one).
func escapees(t *testing.T, b *Box) (running, zombie int) {
	t.Helper()
	needTools(t, "sh", "setsid", "env", "mkfifo")
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	script := `mkfifo e z never
(setsid env -i "$1" -c 'echo $$ > e; read x < never' </dev/null >/dev/null 2>&1 &)
(setsid "$1" -c 'echo $$ > z' </dev/null >/dev/null 2>&1 &)
read e < e; read z < z; echo "$e $z"`
	cmd := exec.CommandContext(t.Context(), "sh", "-c", script, "sh", sh)
	cmd.Dir = b.Dir()
	var out strings.Builder
	cmd.Stdout = &out
	if err := b.Start(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Sscan(out.String(), &running, &zombie); err != nil {
		t.Fatalf("the command printed %q: %v", out.String(), err)
	}
	t.Cleanup(func() { _ = unix.Kill(running, unix.SIGKILL) })
	// The helper that exits is this process's child since its parent
	// exited: wait until it has exited too, leaving it a zombie.
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, zombie, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatalf("waiting for the helper %d to exit: %v", zombie, err)
	}
	if st, ok := alive(zombie); !ok || st != 'Z' {
		t.Fatalf("the helper %d is in state %q (there: %v), want a zombie", zombie, st, ok)
	}
	if st, ok := alive(running); !ok || st == 'Z' {
		t.Fatalf("the env -i helper %d is in state %q (there: %v), want running", running, st, ok)
	}
	return running, zombie
}

// TestFallbackReapsEscapees: without Processes, End also ends an orphan
// of the command that left its process group in a session of its own and
// dropped the Box's mark (env -i), naming it in Report.Left, and reaps one
// that exited before End, a zombie of tapeloop's, which it does not name.
func TestFallbackReapsEscapees(t *testing.T) {
	b, err := Open(&Config{Workspace: t.TempDir(), Home: t.TempDir(), Without: All})
	if err != nil {
		t.Fatal(err)
	}
	running, zombie := escapees(t, b)
	report := b.End()
	for _, pid := range []int{running, zombie} {
		if st, ok := alive(pid); ok {
			t.Errorf("process %d is still there after End, in state %q", pid, st)
		}
	}
	if want := []string{"sh"}; !slices.Equal(report.Left, want) {
		t.Errorf("Report.Left = %q, want %q: the env -i helper, not the zombie", report.Left, want)
	}
}

// TestFallbackOrphansWaitForTheLastBox: an unmarked orphan cannot be told
// to be one Box's rather than another's, so while another Box subreaps,
// End leaves it, and the last Box to end takes it.
func TestFallbackOrphansWaitForTheLastBox(t *testing.T) {
	other, err := Open(&Config{Workspace: t.TempDir(), Home: t.TempDir(), Without: All})
	if err != nil {
		t.Fatal(err)
	}
	needTools(t, "true")
	cmd := exec.CommandContext(t.Context(), "true")
	if err := other.Start(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	b, err := Open(&Config{Workspace: t.TempDir(), Home: t.TempDir(), Without: All})
	if err != nil {
		t.Fatal(err)
	}
	running, zombie := escapees(t, b)
	if report := b.End(); report.Left != nil {
		t.Errorf("Report.Left = %q while another Box subreaps, want nil", report.Left)
	}
	if st, ok := alive(running); !ok || st == 'Z' {
		t.Errorf("the env -i helper is in state %q (there: %v) while another Box subreaps, want running", st, ok)
	}
	report := other.End()
	for _, pid := range []int{running, zombie} {
		if st, ok := alive(pid); ok {
			t.Errorf("process %d is still there after the last End, in state %q", pid, st)
		}
	}
	if want := []string{"sh"}; !slices.Equal(report.Left, want) {
		t.Errorf("the last Box's Report.Left = %q, want %q", report.Left, want)
	}
}

// TestFallbackLeavesTapeloopsOwnChildren: End takes none of tapeloop's
// own children: one it started in a session of its own before the Box
// subreaped, and one it started in its own session while a command ran.
func TestFallbackLeavesTapeloopsOwnChildren(t *testing.T) {
	needTools(t, "sh", "true")
	// Each blocks reading its stdin until the test ends.
	own := func(setsid bool) *exec.Cmd {
		cmd := exec.Command("sh", "-c", "read x")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: setsid}
		w, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close(); _ = cmd.Wait() })
		return cmd
	}
	before := own(true)
	b, err := Open(&Config{Workspace: t.TempDir(), Home: t.TempDir(), Without: All})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "true")
	if err := b.Start(cmd); err != nil {
		t.Fatal(err)
	}
	during := own(false)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if report := b.End(); report.Left != nil {
		t.Errorf("Report.Left = %q, want nil", report.Left)
	}
	for _, c := range []*exec.Cmd{before, during} {
		if st, ok := alive(c.Process.Pid); !ok || st == 'Z' {
			t.Errorf("tapeloop's own child %d is in state %q (there: %v) after End, want running", c.Process.Pid, st, ok)
		}
	}
}

// TestFallbackWhereTheSessionLeaderIsUnseen: where tapeloop runs in a
// PID namespace whose processes' session leader lives outside it (a CI
// job started in a container), getsid and /proc show every session id of
// tapeloop's own session as 0; the escapee tests run there too, through
// unshare(1), and still end the command's orphans.
func TestFallbackWhereTheSessionLeaderIsUnseen(t *testing.T) {
	if os.Getenv("TAPELOOP_SANDBOX_TEST_UNSEEN_LEADER") != "" {
		if sid, err := unix.Getsid(0); err != nil || sid != 0 {
			t.Fatalf("getsid in the new PID namespace = %d, %v; want 0", sid, err)
		}
		t.Skip("run by the outer test")
	}
	needTools(t, "unshare")
	args := []string{"--pid", "--fork", "--mount-proc"}
	if os.Getuid() != 0 {
		args = append([]string{"--user", "--map-root-user"}, args...)
	}
	if err := exec.Command("unshare", append(args, "true")...).Run(); err != nil {
		t.Skipf("unshare %s cannot make a PID namespace here: %v", strings.Join(args, " "), err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args = append(args, self, "-test.v", "-test.count=1",
		"-test.run", "^(TestFallbackWhereTheSessionLeaderIsUnseen|TestFallbackReapsEscapees|TestFallbackOrphansWaitForTheLastBox)$")
	cmd := exec.CommandContext(t.Context(), "unshare", args...)
	cmd.Env = append(os.Environ(), "TAPELOOP_SANDBOX_TEST_UNSEEN_LEADER=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the escapee tests in a PID namespace of their own: %v\n%s", err, out)
	}
	for _, name := range []string{"TestFallbackReapsEscapees", "TestFallbackOrphansWaitForTheLastBox"} {
		if !strings.Contains(string(out), "--- PASS: "+name) {
			t.Errorf("%s did not pass in the PID namespace:\n%s", name, out)
		}
	}
}
