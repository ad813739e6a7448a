package mixed_test

import (
	"bytes"
	"context"
	"flag"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/option"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/evalrun"
	"github.com/tapeloop/tapeloop/examples/notes"
	"github.com/tapeloop/tapeloop/harness"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

// runNotes runs the notes agent of examples/notes on a bridged run: its
// client pointed at the bridge, its folder the run's workspace.
func runNotes(ctx context.Context, r *bridge.Run) error {
	a := notes.New(r.Dir, option.WithBaseURL(r.OpenAIBaseURL), option.WithHTTPClient(r.HTTPClient),
		option.WithAPIKey(r.APIKey), option.WithMaxRetries(0))
	a.Stream = true
	answer, err := a.Chat().Say(ctx, r.Input[len(r.Input)-1].Content)
	r.Final(answer)
	return err
}

// agents is the notes agent by the name scenarios/agent.yaml gives.
var agents = map[string]harness.Runner{"notes": bridge.Runner(runNotes, nil)}

// TestScenarios replays scenarios/, native and bridged, in one Test: one
// subtest per scenario (go test -update rewrites the goldens).
func TestScenarios(t *testing.T) {
	harness.Test(t, "scenarios", &harness.TestOptions{Agents: agents})
}

// TestEvalrunReplay replays the same folder in one `evalrun replay`, with
// the agent registered as a main of your own would.
func TestEvalrunReplay(t *testing.T) {
	var out, errb bytes.Buffer
	code := evalrun.Main(t.Context(), []string{"replay", "scenarios"}, &out, &errb, &evalrun.Options{Agents: agents})
	if code != 0 || !strings.Contains(out.String(), "2 passed, 0 failed") {
		t.Errorf("exit %d\n%s%s", code, out.String(), errb.String())
	}
}
