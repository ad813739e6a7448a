package harness

import (
	"context"
	"errors"
	"testing"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// TestSetupErrorsAreFileErrors: an error about what a scenario sets up
// names its file, line and key as a *fileerr.Error, reached with
// errors.As, and still matches scenario.ErrScenario and its kind.
func TestSetupErrorsAreFileErrors(t *testing.T) {
	for _, c := range []struct {
		name, src string
		line      int
		key       string
		kind      error
	}{
		{"unknown tool", "format: tapeloop/v1\nsetup:\n  tools: [abacus]\ninput: [{role: user, content: hi}]\ntape: []\n",
			3, "setup.tools[abacus].fixture", nil},
		{"a tool's with:", "format: tapeloop/v1\nsetup:\n  tools:\n    - name: flaky\n      with: {retries: 3}\ninput: [{role: user, content: hi}]\ntape: []\n",
			5, "setup.tools[flaky].with.retries", toolkit.ErrUnknownKey},
		{"no runner for the agent", "format: tapeloop/v1\nsetup:\n  agent: {go: notes}\ninput: [{role: user, content: hi}]\ntape: []\n",
			3, "setup.agent.go", scenario.ErrBridged},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := scenario.Parse([]byte(c.src), "s.yaml", "s")
			if err != nil {
				t.Fatal(err)
			}
			_, err = Run(context.Background(), s, nil)
			var fe *fileerr.Error
			if !errors.As(err, &fe) || fe.File != "s.yaml" || fe.Line != c.line || fe.Key != c.key || !errors.Is(err, scenario.ErrScenario) {
				t.Fatalf("Run: %v (%+v), want a *fileerr.Error at s.yaml:%d, key %s, matching ErrScenario", err, fe, c.line, c.key)
			}
			if c.kind != nil && !errors.Is(err, c.kind) {
				t.Errorf("Run: %v does not match %v", err, c.kind)
			}
			if fe.Error() != err.Error() {
				t.Errorf("the error's text %q is not its *fileerr.Error's %q", err, fe)
			}
		})
	}
}
