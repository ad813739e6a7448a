package scenario_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/scenario"
)

func agentScenario(agent string) string {
	return "format: tapeloop/v1\nsetup:\n  agent: " + agent + "\ninput:\n  - {role: user, content: hi}\ntape: []\n"
}

func TestAgentCommand(t *testing.T) {
	s, err := scenario.Parse([]byte(agentScenario(`{command: [node, $SCENARIO_DIR/agent.js], env: {MODE: fast}, timeout: 2s}`)), "a.yaml", "a")
	if err != nil {
		t.Fatal(err)
	}
	a := s.Setup.Agent
	if strings.Join(a.Command, " ") != "node $SCENARIO_DIR/agent.js" || a.Env["MODE"] != "fast" || a.Timeout != 2*time.Second || a.Go != "" {
		t.Errorf("setup.agent decoded as %+v", a)
	}
}

func TestAgentSetupErrors(t *testing.T) {
	for _, tc := range []struct{ agent, want string }{
		{`{go: notes, command: [node]}`, "a.yaml:3: setup.agent: both go: and command:"},
		{`{}`, "a.yaml:3: setup.agent: missing go:"},
		{`{command: []}`, "a.yaml:3: setup.agent.command: empty command"},
		{`{command: [""]}`, "a.yaml:3: setup.agent.command: empty command"},
		{`{go: notes, timeout: 5s}`, "a.yaml:3: setup.agent: env: and timeout: apply to a command: agent"},
		{`{command: [node], timeout: 0s}`, "a.yaml:3: setup.agent.timeout: 0s is not a positive duration"},
		{`{command: [node], env: {"A=B": x}}`, `a.yaml:3: setup.agent.env: "A=B" is not a variable name`},
		{`{command: [node], shell: true}`, "a.yaml:3: setup.agent"},
		{`{command: [node], env: {TOKEN: [a, b]}}`, "a.yaml:3: setup.agent.env.TOKEN: want a string, got a sequence"},
	} {
		_, err := scenario.Parse([]byte(agentScenario(tc.agent)), "a.yaml", "a")
		if err == nil || !errors.Is(err, scenario.ErrScenario) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("setup.agent: %s: %v, want an ErrScenario saying %q", tc.agent, err, tc.want)
		}
	}
}
