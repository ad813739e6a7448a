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

// silentScenario is bridged to an agent that answers without asking the
// model (it never reaches the bridge).
const silentScenario = `format: tapeloop/v1
setup:
  agent: {go: silent}
input:
  - {role: user, content: "Say hello."}
tape: []
expect:
  termination: final_text
`

// silentAgent answers without a model call.
func silentAgent(ctx context.Context, r *bridge.Run) error {
	r.Final("Hello from a cache.")
	return nil
}

// TestNoModelCallFails: an agent that makes no model call fails record
// and replay, unless the scenario expects none with expect.iterations: 0
// (issue 39, item 5).
func TestNoModelCallFails(t *testing.T) {
	dir := newScenarios(t, map[string]string{"s.yaml": silentScenario, "none.yaml": strings.Replace(silentScenario, "termination: final_text", "termination: final_text\n  iterations: 0", 1)})
	record := func(path string) (int, string, string) {
		var out, errb bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, agents: map[string]harness.Runner{"silent": bridge.Runner(silentAgent, nil)}}
		code := recordCommand(context.Background(), e, []string{"--model", "fake/m", path}, scripted(textResponse("never asked")).open)
		return code, out.String(), errb.String()
	}
	path := filepath.Join(dir, "s.yaml")
	code, out, errOut := record(path)
	if code != exitFailed || !strings.Contains(out, "made no model call") {
		t.Errorf("record of an agent that made no model call: exit %d, want 1 saying so\n%s%s", code, out, errOut)
	}
	if data, _ := os.ReadFile(path); string(data) != silentScenario {
		t.Errorf("the failed recording was written:\n%s", data)
	}
	if code, out, errOut := runAgentCmd(t, silentAgent, "replay", path); code == exitOK {
		t.Errorf("replay of it passed\n%s%s", out, errOut)
	}

	// expect.iterations: 0 says the agent makes none: it records and replays.
	none := filepath.Join(dir, "none.yaml")
	if code, out, errOut := record(none); code != exitOK {
		t.Errorf("record of a scenario expecting no model call: exit %d\n%s%s", code, out, errOut)
	}
	var out2, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out2, stderr: &errb, agents: map[string]harness.Runner{"silent": bridge.Runner(silentAgent, nil)}}
	if code := run(context.Background(), []string{"replay", none}, e); code != exitOK {
		t.Errorf("replay of a scenario expecting no model call: exit %d\n%s%s", code, out2.String(), errb.String())
	}
}
