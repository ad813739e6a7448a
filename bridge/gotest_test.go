package bridge_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/scenario"
)

// nativeScenario is a scenario with no setup.agent, which bridge.Test
// leaves to harness.Test.
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

// TestGoTestRunsTheBridgedScenarios: bridge.Test runs, as subtests, each
// scenario of a folder for the agent it is given (TestOptions.Agent) with
// the agent function and each setup.agent.command with its program, and
// skips the native ones and those of other Go agents (all Go agents'
// when it has no agent function); with Update it writes their goldens,
// and without it checks them.
func TestGoTestRunsTheBridgedScenarios(t *testing.T) {
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
	write("other.yaml", strings.Replace(notesScenario, "agent: {go: notes}", "agent: {go: other}", 1))
	write("native.yaml", nativeScenario)

	var mu sync.Mutex
	var ran []string
	agent := func(t *testing.T, r *bridge.Run) error {
		mu.Lock()
		ran = append(ran, r.Scenario.Name)
		mu.Unlock()
		return newNotesAgent().agentFunc()(t.Context(), r)
	}
	for _, update := range []bool{true, false} {
		ran = nil
		bridge.Test(t, dir, agent, &bridge.TestOptions{Agent: "notes", Update: update})
		if !slices.Equal(ran, []string{"notes"}) {
			t.Errorf("update %v: the agent function ran for %v, want notes alone", update, ran)
		}
	}
	// With no agent function only the command runs (its golden is checked).
	bridge.Test(t, dir, nil, nil)
	for name, want := range map[string]bool{"notes.yaml": true, "command.yaml": true, "other.yaml": false, "native.yaml": false} {
		if _, err := os.Stat(scenario.GoldenPath(filepath.Join(dir, name))); (err == nil) != want {
			t.Errorf("%s: golden written %v, want %v", name, err == nil, want)
		}
	}
}
