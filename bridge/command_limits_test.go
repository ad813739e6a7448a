package bridge_test

import (
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/sandbox"
	"github.com/tapeloop/tapeloop/scenario"
)

// setDuration sets *v to d for the test t.
func setDuration(t *testing.T, v *time.Duration, d time.Duration) {
	t.Helper()
	old := *v
	*v = d
	t.Cleanup(func() { *v = old })
}

// modeScenario loads a scenario with no tape whose setup.agent.command is
// testdata/cmdagent with args, killed after timeout.
func modeScenario(t *testing.T, timeout string, args ...string) *scenario.Scenario {
	t.Helper()
	command := []string{strconv.Quote(buildCommandAgent(t))}
	for _, a := range args {
		command = append(command, strconv.Quote(a))
	}
	text := "format: tapeloop/v1\nsetup:\n  agent:\n    command: [" + strings.Join(command, ", ") + "]\n    timeout: " + timeout +
		"\ninput: [{role: user, content: hi}]\ntape: []\n"
	return load(t, writeScenario(t, text))
}

// holders is a listener (a Unix socket) that "cmdagent hold ADDR" processes
// connect to: each connection, handed out on conns, stays open as long as
// its process lives. release (at the latest at the end of the test) closes
// the listener and every connection, which ends the processes holding one.
type holders struct {
	ln      net.Listener
	conns   chan net.Conn
	release func()
}

func newHolders(t *testing.T) *holders {
	t.Helper()
	// A Unix socket, reached by its path: the command's network namespace
	// has no way to the test's loopback.
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "holders"))
	if err != nil {
		t.Fatal(err)
	}
	h := &holders{ln: ln, conns: make(chan net.Conn, 16)}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var accepted []net.Conn
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			accepted = append(accepted, c)
			mu.Unlock()
			select {
			case h.conns <- c:
			default:
			}
		}
	})
	h.release = sync.OnceFunc(func() {
		_ = ln.Close()
		wg.Wait()
		for _, c := range accepted {
			_ = c.Close()
		}
	})
	t.Cleanup(h.release)
	return h
}

func (h *holders) addr() string { return h.ln.Addr().String() }

// TestCommandServerDropsAStalledClient: the model server of a command
// closes a connection whose request headers do not arrive in time, so a
// client that stalls cannot hold it open (the command here prints
// "dropped" once the server has closed its connection).
func TestCommandServerDropsAStalledClient(t *testing.T) {
	setDuration(t, bridge.CommandReadHeaderTimeout, 50*time.Millisecond)
	s := modeScenario(t, "60s", "stall")
	o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != "final_text" || o.Final != "dropped" {
		t.Errorf("a client that stalled its headers: the run ended with %s, final %q, error %q; want the server to drop it (final \"dropped\")",
			o.Termination, o.Final, o.Error)
	}
}

// TestCommandLeavingAProcessOnItsStdout: a command that exits while a
// process it started still holds its stdout fails the run soon after,
// saying so, instead of waiting out setup.agent.timeout for that process;
// where the sandbox holds a PID namespace, that process dies with the
// command and the run ends with the answer.
func TestCommandLeavingAProcessOnItsStdout(t *testing.T) {
	setDuration(t, bridge.CommandWaitDelay, 50*time.Millisecond)
	h := newHolders(t)
	s := modeScenario(t, "60s", "orphan", h.addr())
	done := make(chan string, 1)
	go func() {
		o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
		if err != nil {
			done <- err.Error()
			return
		}
		done <- string(o.Termination) + ": " + o.Error
	}()
	var got string
	select {
	case got = <-done:
	case <-time.After(time.Minute):
		// The bound only turns a run that waits on the held stdout into a
		// failure instead of a hang: ending the process ends the wait.
		h.release()
		t.Fatalf("the run waited for the process holding the command's stdout: %s", <-done)
	}
	if sandbox.Probe().Held&sandbox.Processes != 0 {
		// In a PID namespace the process dies when the command exits, so
		// the stdout is free at once and the answer stands.
		if got != "final_text: " {
			t.Errorf("the run ended with\n%s\nwant final_text: the sandbox kills the process holding the stdout with the command", got)
		}
		return
	}
	want := "it exited, but a process it started kept its stdout or stderr open"
	if !strings.HasPrefix(got, "agent_error: ") || !strings.Contains(got, want) {
		t.Errorf("the run ended with\n%s\nwant an agent error saying %q", got, want)
	}
}

// TestCommandOutputLimit: a command's stdout, its final answer, is taken
// whole up to MaxCommandOutput bytes; one byte more fails the run, saying
// so, rather than being kept in memory however large it grows.
func TestCommandOutputLimit(t *testing.T) {
	for _, n := range []int{bridge.MaxCommandOutput, bridge.MaxCommandOutput + 1} {
		s := modeScenario(t, "60s", "print", strconv.Itoa(n))
		o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
		if err != nil {
			t.Fatal(err)
		}
		if n <= bridge.MaxCommandOutput {
			if o.Termination != "final_text" || len(o.Final) != n {
				t.Errorf("%d bytes on stdout: the run ended with %s (%s), a final of %d bytes", n, o.Termination, o.Error, len(o.Final))
			}
			continue
		}
		if want := "it printed more than 1048576 bytes on stdout"; o.Termination == "final_text" || !strings.Contains(o.Error, want) {
			t.Errorf("%d bytes on stdout: the run ended with %s (%s, a final of %d bytes), want an error saying %q", n, o.Termination, o.Error, len(o.Final), want)
		}
	}
}
