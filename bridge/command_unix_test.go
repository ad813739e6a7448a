//go:build unix

package bridge_test

import (
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/sandbox"
)

// TestCommandKilledWithItsChildren: a command that is stopped (here its
// run is cancelled) is killed with its process group, so a process it
// started dies with it rather than living on after the run. The child
// holds the command's stdout, and a command that exited is waited for an
// hour here: the run ends at once only if stopping the command killed the
// child too, not just the command.
func TestCommandKilledWithItsChildren(t *testing.T) {
	setDuration(t, bridge.CommandWaitDelay, time.Hour)
	h := newHolders(t)
	s := modeScenario(t, "60s", "group", h.addr())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	type result struct {
		o   *harness.Outcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		o, err := bridge.Runner(bridge.Command(s), nil)(ctx, s, &harness.RunOptions{Model: notesScript()})
		done <- result{o, err}
	}()
	var child net.Conn
	select {
	case child = <-h.conns:
	case r := <-done:
		t.Fatalf("the run ended before the command's child was up: %+v", r)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute):
		// The bound only turns a run that waits on the child into a
		// failure instead of a hang: ending the child ends the wait.
		h.release()
		<-done
		t.Fatal("the stopped run waited for the child holding its stdout: stopping the command did not kill its group")
	}
	connEnds(t, child, "a child of a stopped run")
}

// connEnds reads c, a child's connection, until it ends, reporting a child
// still alive a minute later: the bound only turns a child that outlives
// the run into a failure instead of a hang; a killed child ends its
// connection at once.
func connEnds(t *testing.T, c net.Conn, what string) {
	t.Helper()
	if err := c.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, c); err != nil {
		t.Errorf("%s: the command's child outlived the run: %v", what, err)
	}
}

// childEnds waits for the first child on h to connect, then for its
// connection to end (see connEnds).
func childEnds(t *testing.T, h *holders, what string) {
	t.Helper()
	var c net.Conn
	select {
	case c = <-h.conns:
	case <-time.After(time.Minute):
		t.Fatalf("%s: the command's child never connected", what)
	}
	connEnds(t, c, what)
}

// TestCommandEndsWhatItLeftRunning: when a command has answered and
// exited, a process it started and left running (its stdout elsewhere, so
// nothing waits for it) is killed with the command's process group: it
// cannot go on touching the workspace after the run.
func TestCommandEndsWhatItLeftRunning(t *testing.T) {
	h := newHolders(t)
	s := modeScenario(t, "60s", "detach", h.addr())
	o, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != "final_text" || o.Final != "answer" {
		t.Errorf("the run ended with %s, final %q, error %q; want final_text \"answer\"", o.Termination, o.Final, o.Error)
	}
	childEnds(t, h, "a child on /dev/null")
}

// TestCommandLeftOnItsStdoutIsKilled: a process left holding the
// command's stdout is killed too once the run has failed for it.
func TestCommandLeftOnItsStdoutIsKilled(t *testing.T) {
	setDuration(t, bridge.CommandWaitDelay, 50*time.Millisecond)
	h := newHolders(t)
	s := modeScenario(t, "60s", "orphan", h.addr())
	if _, err := bridge.Runner(bridge.Command(s), nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()}); err != nil {
		t.Fatal(err)
	}
	childEnds(t, h, "a child on the command's stdout")
}

// TestConversationLeavingAProcessOnItsStdout: in a conversation too, a
// command that exits while a process it started holds its stdout fails the
// run soon after, saying so, instead of waiting out setup.agent.timeout
// (30s here) for a next answer that cannot come.
func TestConversationLeavingAProcessOnItsStdout(t *testing.T) {
	if sandbox.Probe().Held&sandbox.Processes != 0 {
		t.Skip("the sandbox's PID namespace kills every process the command started when it exits, so none can hold its stdout (TestCommandSetsidHelperEnds)")
	}
	setDuration(t, bridge.CommandWaitDelay, 50*time.Millisecond)
	h := newHolders(t)
	bin := buildCommandAgent(t)
	got := conversationCommand(t, `read -r input; `+strconv.Quote(bin)+` hold `+h.addr()+` & echo '{"final": "a"}'`)
	want := "it exited, but a process it started kept its stdout or stderr open"
	if !strings.Contains(got, want) {
		t.Errorf("the outcome's error is\n%s\nwant it to say %q", got, want)
	}
	childEnds(t, h, "a child on the conversation's stdout")
}
