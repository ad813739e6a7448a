package evalrun

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
)

// TestRepeatRunsBridgedScenarios: replay --repeat runs a bridged scenario
// again too, so an agent whose outcome changes from run to run (here, its
// answer; in life, the order its concurrent requests arrive in) fails as
// nondeterministic (issue 39, item 7).
func TestRepeatRunsBridgedScenarios(t *testing.T) {
	dir := newScenarios(t, map[string]string{"b/echo.yaml": echoScenario})
	path := filepath.Join(dir, "b", "echo.yaml")
	if code, out, errOut := runAgentCmd(t, echoAgent("You are terse."), "replay", "--update", path); code != exitOK {
		t.Fatalf("replay --update: exit %d\n%s%s", code, out, errOut)
	}
	var runs atomic.Int32
	flaky := func(ctx context.Context, r *bridge.Run) error {
		if err := echoAgent("You are terse.")(ctx, r); err != nil {
			return err
		}
		if runs.Add(1) > 1 {
			r.Final("Hello again.")
		}
		return nil
	}
	code, out, errOut := runAgentCmd(t, flaky, "replay", "--repeat", "2", path)
	if code != exitFailed || !strings.Contains(out, "nondeterministic: repeat 2") {
		t.Errorf("--repeat 2 of a bridged agent whose answer changes: exit %d, want 1 saying it is nondeterministic\n%s%s", code, out, errOut)
	}
	if n := runs.Load(); n != 2 {
		t.Errorf("the agent ran %d times, want 2", n)
	}
}
