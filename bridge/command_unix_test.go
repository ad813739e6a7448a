//go:build unix

package bridge_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
)

// TestCommandKilledWithItsChildren: a command that is stopped (here its
// run is cancelled) is killed with its process group, so a process it
// started dies with it rather than living on after the run.
func TestCommandKilledWithItsChildren(t *testing.T) {
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
		o, err := bridge.RunScenario(ctx, s, bridge.Command(s), &bridge.RunOptions{Model: notesScript()})
		done <- result{o, err}
	}()
	var child io.Reader
	select {
	case c := <-h.conns:
		child = c
		// The bound only turns a child that outlives the run into a
		// failure instead of a hang; a killed child ends its connection
		// at once.
		if err := c.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	case r := <-done:
		t.Fatalf("the run ended before the command's child was up: %+v", r)
	}
	cancel()
	<-done
	if _, err := io.Copy(io.Discard, child); err != nil {
		t.Errorf("the command's child outlived its stopped run: %v", err)
	}
}
