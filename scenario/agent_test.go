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

func TestAgentPassEnv(t *testing.T) {
	s, err := scenario.Parse([]byte(agentScenario(`{command: [node], pass_env: [GOFLAGS, NODE_OPTIONS], pass_credentials: [GITHUB_TOKEN]}`)), "a.yaml", "a")
	if err != nil {
		t.Fatal(err)
	}
	if a := s.Setup.Agent; strings.Join(a.PassEnv, " ") != "GOFLAGS NODE_OPTIONS" || strings.Join(a.PassCredentials, " ") != "GITHUB_TOKEN" {
		t.Errorf("setup.agent decoded as %+v", a)
	}
}

// TestCredentialShaped: names that hold a credential by the SDKs' and
// tools' conventions, and names that do not.
func TestCredentialShaped(t *testing.T) {
	for _, name := range []string{"OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
		"GOOGLE_APPLICATION_CREDENTIALS", "AWS_PROFILE", "PGPASSWORD", "MYSQL_PWD", "npm_config__auth", "SESSION_COOKIE", "SSH_PRIVATE_KEY_PATH", "APIKEY"} {
		if !scenario.CredentialShaped(name) {
			t.Errorf("%s does not look like a credential", name)
		}
	}
	for _, name := range []string{"GOFLAGS", "NODE_OPTIONS", "HTTPS_PROXY", "PYTHONDONTWRITEBYTECODE", "KEYBOARD_LAYOUT", "PWD", "MONKEY"} {
		if scenario.CredentialShaped(name) {
			t.Errorf("%s looks like a credential", name)
		}
	}
}

func TestAgentSetupErrors(t *testing.T) {
	for _, tc := range []struct{ agent, want string }{
		{`{go: notes, command: [node]}`, "a.yaml:3: setup.agent: both go: and command:"},
		{`{}`, "a.yaml:3: setup.agent: missing go:"},
		{`{command: []}`, "a.yaml:3: setup.agent.command: empty command"},
		{`{command: [""]}`, "a.yaml:3: setup.agent.command: empty command"},
		{`{go: notes, timeout: 5s}`, "a.yaml:3: setup.agent: env:, pass_env:, pass_credentials: and timeout: apply to a command: agent"},
		{`{go: notes, pass_env: [GOFLAGS]}`, "a.yaml:3: setup.agent: env:, pass_env:"},
		{`{command: [node], pass_env: [GITHUB_TOKEN]}`, "a.yaml:3: setup.agent.pass_env: GITHUB_TOKEN looks like a credential, which a replay would hand the agent: list it under setup.agent.pass_credentials"},
		{"{command: [node], pass_env: [GOFLAGS, GOFLAGS]}", "setup.agent.pass_env: GOFLAGS is listed twice"},
		{`{command: [node], pass_env: ["A=B"]}`, `setup.agent.pass_env: "A=B" is not a variable name`},
		{`{command: [node], pass_env: GOFLAGS}`, "setup.agent.pass_env"},
		// Variables the run sets itself: pass_env could never reach the agent.
		{`{command: [node], pass_env: [GOFLAGS, HOME]}`, "a.yaml:3: setup.agent.pass_env: HOME is set by the run itself (a scratch directory of the run, removed after it), so tapeloop's value would never reach the agent"},
		{"\n    command: [node]\n    pass_env:\n      - GOFLAGS\n      - TMPDIR", "a.yaml:7: setup.agent.pass_env: TMPDIR is set by the run itself (a scratch directory of the run"},
		{`{command: [node], pass_env: [OPENAI_BASE_URL]}`, "a.yaml:3: setup.agent.pass_env: OPENAI_BASE_URL is set by the run itself (it points the agent's SDK at the bridge)"},
		{`{command: [node], pass_env: [AWS_REGION]}`, "a.yaml:3: setup.agent.pass_env: AWS_REGION is set by the run itself (it points the agent's SDK at the bridge)"},
		{`{command: [node], pass_env: [TAPELOOP_SCENARIO]}`, "a.yaml:3: setup.agent.pass_env: TAPELOOP_SCENARIO is set by the run itself"},
		{`{command: [node], pass_env: [TAPELOOP_SANDBOX_RUN]}`, "a.yaml:3: setup.agent.pass_env: TAPELOOP_SANDBOX_RUN is set by the run itself"},
		{`{command: [node], pass_credentials: [GOFLAGS]}`, "setup.agent.pass_credentials: GOFLAGS does not look like a credential: list it under setup.agent.pass_env"},
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
