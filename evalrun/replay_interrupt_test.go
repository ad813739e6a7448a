package evalrun

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
)

// TestInterruptedUpdateLeavesGoldens: replay --update cut short by a
// signal (its context done) reports each scenario it did not finish as
// interrupted and leaves its golden as it was, native and bridged
// (issue 39, item 8).
func TestInterruptedUpdateLeavesGoldens(t *testing.T) {
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario, "b/echo.yaml": echoScenario})
	agents := map[string]harness.Runner{"echo": bridge.Runner(echoAgent("You are terse."), nil)}
	replay := func(ctx context.Context, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(ctx, args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, agents: agents})
		return code, out.String(), errb.String()
	}
	if code, out, errOut := replay(context.Background(), "replay", "--update", dir); code != exitOK {
		t.Fatalf("replay --update: exit %d\n%s%s", code, out, errOut)
	}
	goldens := []string{filepath.Join(dir, "math", "add.golden.yaml"), filepath.Join(dir, "b", "echo.golden.yaml")}
	before := map[string]string{}
	for _, g := range goldens {
		data, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		before[g] = string(data)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the signal came
	code, out, errOut := replay(ctx, "replay", "--update", dir)
	if code != exitFailed || strings.Count(out, "STOPPED") != 2 || !strings.Contains(out, "its golden is untouched") || !strings.Contains(out, "2 interrupted") {
		t.Errorf("an interrupted replay --update: exit %d, want 1 with both scenarios reported interrupted\n%s%s", code, out, errOut)
	}
	for _, g := range goldens {
		if data, _ := os.ReadFile(g); string(data) != before[g] {
			t.Errorf("%s was rewritten by the interrupted run:\n%s", g, data)
		}
	}
}
