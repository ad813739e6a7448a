package bridge_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
)

// nativeScenario is a scenario with no setup.agent, which tapeloop's own
// loop runs.
const nativeScenario = `format: tapeloop/v1
setup:
  tools: [read_file]
input:
  - {role: user, content: "Say hello."}
tape:
  - response: {content: "Hello."}
expect:
  final: {equals: "Hello."}
`

// TestOneTestRunsEveryKind: one harness.Test runs, as subtests, each
// scenario of a folder: a native one through tapeloop's loop, a Go agent's
// with the runner its name gives (TestOptions.Agents), and a
// setup.agent.command with its program (TestOptions.Commands); with Update
// it writes their goldens, and without it checks them.
func TestOneTestRunsEveryKind(t *testing.T) {
	bin := buildCommandAgent(t)
	path := record(t, notesScenario, newNotesAgent().agentFunc(), notesScript())
	dir := filepath.Dir(path)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	recordCommand(t, write("command.yaml", commandText(bin, "notes", "60s")))
	write("native.yaml", nativeScenario)

	var mu sync.Mutex
	var ran []string
	agent := func(ctx context.Context, r *bridge.Run) error {
		mu.Lock()
		ran = append(ran, r.Scenario.Name)
		mu.Unlock()
		return newNotesAgent().agentFunc()(ctx, r)
	}
	opts := &harness.TestOptions{Agents: map[string]harness.Runner{"notes": bridge.Runner(agent, nil)}, Commands: bridge.Runner(nil, nil)}
	for _, update := range []bool{true, false} {
		ran = nil
		opts.Update = update
		harness.Test(t, dir, opts)
		if !slices.Equal(ran, []string{"notes"}) {
			t.Errorf("update %v: the agent function ran for %v, want notes alone", update, ran)
		}
	}
	for _, name := range []string{"notes.yaml", "command.yaml", "native.yaml"} {
		if _, err := os.Stat(scenario.GoldenPath(filepath.Join(dir, name))); err != nil {
			t.Errorf("%s: no golden written: %v", name, err)
		}
	}
}
