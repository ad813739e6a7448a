//go:build linux

package sandbox

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// stageStatus is what the sandbox holds without the privilege to make
// namespaces, probed even where this process has it (the stage's user
// namespace then maps root to itself): the path of an unprivileged
// tapeloop, which these tests take wherever they run.
var stageStatus = sync.OnceValue(func() Status {
	return probeUnprivileged(errors.New("not tried: the test takes the unprivileged path"))
})

// needStage skips t unless a stage holds g here, saying why it does not.
func needStage(t *testing.T, g Guarantee) {
	t.Helper()
	if st := stageStatus(); st.Held&g != g || !st.stage {
		t.Skipf("no stage here to hold %s (the kernel refuses unprivileged user namespaces, or what they need): %s", g, st)
	}
}

// stageHelperEnv, set to the bridge's address, makes TestStageHelper the
// command of TestStageIsolates.
const stageHelperEnv = "TAPELOOP_SANDBOX_STAGE_HELPER"

// TestStageHelper is the command TestStageIsolates runs in its Box (this
// test binary, run again): it sends the bridge its working directory,
// then dials an outside address and looks a name up, each of which must
// fail at once (a refusal, not a timeout), and writes inside its
// workspace and, refused, outside it.
func TestStageHelper(t *testing.T) {
	addr := os.Getenv(stageHelperEnv)
	if addr == "" {
		t.Skip("the command of TestStageIsolates, run by it")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dialing the bridge: %v", err)
	}
	if _, err := io.WriteString(c, "hello from "+wd); err != nil {
		t.Fatal(err)
	}
	c.Close()
	// The timeout only keeps a broken sandbox from hanging the test: the
	// dial must be refused.
	d := net.Dialer{Timeout: time.Minute}
	if _, err := d.Dial("tcp", "192.0.2.1:443"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dialing 192.0.2.1:443: %v, want it refused", err)
	}
	if addrs, err := net.LookupHost("api.example.com"); err == nil {
		t.Errorf("looking up api.example.com: %v, want an error", addrs)
	}
	if err := os.WriteFile("inside.txt", []byte("x"), 0o644); err != nil {
		t.Errorf("writing inside the workspace: %v", err)
	}
	if err := os.WriteFile("/etc/tapeloop-stage-probe", []byte("x"), 0o644); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("writing /etc/tapeloop-stage-probe: %v, want a permission error", err)
	}
}

// TestStageIsolates: without the privilege to make namespaces, a stage
// gives a command every guarantee: it reaches the bridge's listener at
// 127.0.0.1:StagePort, works in /tapeloop/work, and its dial elsewhere,
// its DNS lookup and its write outside the workspace are refused and
// reported as the privileged Box reports them.
func TestStageIsolates(t *testing.T) {
	needStage(t, All)
	work := t.TempDir()
	b, err := open(&Config{Workspace: work, Home: t.TempDir(), Require: All}, stageStatus())
	if err != nil {
		t.Fatal(err)
	}
	defer b.End()
	ln, err := b.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	heard := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			heard <- err.Error()
			return
		}
		defer c.Close()
		got, _ := io.ReadAll(c)
		heard <- string(got)
	}()
	self, err := os.Executable() // os.Args[0] may be relative to another directory
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), self, "-test.run=^TestStageHelper$", "-test.v")
	cmd.Env = []string{stageHelperEnv + "=" + ln.Addr().String(), "HOME=" + HomeDir, "PATH=/usr/bin:/bin"}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := b.Start(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the command failed: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "--- PASS: TestStageHelper") {
		t.Fatalf("the command did not run its test:\n%s", out.String())
	}
	r := b.End()
	if got, want := <-heard, "hello from "+WorkDir; got != want {
		t.Errorf("the bridge heard %q, want %q", got, want)
	}
	if want := "connect tcp 192.0.2.1:443"; !slices.Contains(r.Network, want) {
		t.Errorf("Report.Network = %q, want it to hold %q", r.Network, want)
	}
	if !slices.ContainsFunc(r.Network, func(a string) bool { return strings.HasPrefix(a, "DNS lookup of api.example.com") }) {
		t.Errorf("Report.Network = %q, want the lookup of api.example.com", r.Network)
	}
	if want := []string{"write /etc/tapeloop-stage-probe"}; !slices.Equal(r.Files, want) {
		t.Errorf("Report.Files = %q, want %q", r.Files, want)
	}
	if _, err := os.Stat(filepath.Join(work, "inside.txt")); err != nil {
		t.Errorf("the write inside the workspace: %v", err)
	}
	if _, err := os.Stat("/etc/tapeloop-stage-probe"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the write outside reached the disk: %v", err)
	}
}

// TestStageEndsLeftovers: a command a stage started is the first process
// of its PID namespace, as without a stage: its setsid helpers die with
// it, unseen.
func TestStageEndsLeftovers(t *testing.T) {
	needStage(t, All)
	b, err := open(&Config{Workspace: t.TempDir(), Home: t.TempDir()}, stageStatus())
	if err != nil {
		t.Fatal(err)
	}
	if report := leaveHelpers(t, b); report.Left != nil {
		t.Errorf("Report.Left = %q, want nil: the kernel ends the helpers unseen", report.Left)
	}
}

// TestStageExecFails: a command that cannot start through a stage fails
// Start as it would without one, naming the path and the reason; the Box
// still ends.
func TestStageExecFails(t *testing.T) {
	needStage(t, All)
	b, err := open(&Config{Workspace: t.TempDir(), Home: t.TempDir()}, stageStatus())
	if err != nil {
		t.Fatal(err)
	}
	err = b.Start(exec.CommandContext(t.Context(), "/nonexistent/tapeloop-agent"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "fork/exec /nonexistent/tapeloop-agent") {
		t.Errorf("Start = %v, want fork/exec /nonexistent/tapeloop-agent: no such file", err)
	}
	if r := b.End(); !r.Empty() {
		t.Errorf("a command that did not start is reported: %s", r)
	}
}

// TestStagedListener: the listener Listen gives before the stage exists
// fails Accept once closed, and closes the stage's listener handed to it
// after.
func TestStagedListener(t *testing.T) {
	l := newStagedListener()
	if got := l.Addr().String(); got != "127.0.0.1:7357" {
		t.Errorf("Addr = %s", got)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept after Close: %v, want net.ErrClosed", err)
	}
	late, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l.set(late)
	if _, err := late.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("the stage's listener, handed over after Close, accepts: %v", err)
	}
}

// BenchmarkBoxRun opens a Box, runs true in it and ends it: where the
// Box's thread makes the namespaces (the privilege), and where a stage
// makes them (tapeloop's executable run again for each command).
func BenchmarkBoxRun(b *testing.B) {
	for _, c := range []struct {
		name   string
		status func() Status
	}{{"thread", Probe}, {"stage", stageStatus}} {
		b.Run(c.name, func(b *testing.B) {
			st := c.status()
			if st.Held != All || (c.name == "stage") != st.stage {
				b.Skipf("the %s does not hold every guarantee here: %s", c.name, st)
			}
			work, home := b.TempDir(), b.TempDir()
			for b.Loop() {
				box, err := open(&Config{Workspace: work, Home: home}, st)
				if err != nil {
					b.Fatal(err)
				}
				cmd := exec.CommandContext(b.Context(), "true")
				if err := box.Start(cmd); err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
				box.End()
			}
		})
	}
}
