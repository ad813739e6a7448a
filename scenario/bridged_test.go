package scenario

import (
	"errors"
	"strings"
	"testing"
)

func TestBridgedScenarios(t *testing.T) {
	const head = "format: tapeloop/v1\nsetup:\n  agent: {go: notes}\n"
	const body = "input: [{role: user, content: hi}]\ntape: [{response: {content: hello}}]\n"
	s, err := Parse([]byte(head+body), "x.yaml", "x")
	if err != nil {
		t.Fatal(err)
	}
	if s.Setup.Agent == nil || s.Setup.Agent.Go != "notes" || s.Setup.Agent.Line != 3 {
		t.Errorf("agent %+v", s.Setup.Agent)
	}
	cases := []struct{ text, want string }{
		{head + "  tools: [read_file]\n" + body, "x.yaml:4: setup.tools: not allowed in a bridged scenario (setup.agent): the agent brings its own tools"},
		{head + "  loop: {max_iterations: 3}\n" + body, "x.yaml:4: setup.loop: not allowed in a bridged scenario (setup.agent): the agent runs its own loop"},
		{head + body + "expect:\n  repairs: {call_1: [trim]}\n", "x.yaml:7: expect.repairs: not allowed in a bridged scenario (setup.agent): the agent repairs arguments inside its own code"},
		{head + body + "expect:\n  errors: {call_1: timeout}\n", "x.yaml:7: expect.errors: not allowed in a bridged scenario (setup.agent): tool failure kinds are decided inside the agent"},
		{head + body + "expect:\n  retries: {read_file: 1}\n", "x.yaml:7: expect.retries: not allowed in a bridged scenario"},
		{"format: tapeloop/v1\nsetup:\n  agent: {}\n" + body, "x.yaml:3: setup.agent: missing go:"},
		{"format: tapeloop/v1\nsetup:\n  agent: {go: \"\"}\n" + body, "x.yaml:3: setup.agent.go: empty name"},
		{"format: tapeloop/v1\nsetup:\n  agent: {python: x}\n" + body, "x.yaml:3: setup.agent"},
	}
	for _, tc := range cases {
		_, err := Parse([]byte(tc.text), "x.yaml", "x")
		if err == nil || !errors.Is(err, ErrScenario) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q)\n got %v\nwant %s...", tc.text, err, tc.want)
		}
	}
}
