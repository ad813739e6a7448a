package scenario

import (
	"errors"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/redact"
)

// AgentSetup marks a bridged scenario: the agent under test is not
// tapeloop's loop but the user's own, whose model calls reach the tape
// through package bridge (setup.agent).
type AgentSetup struct {
	// Go names the Go agent that runs the scenario: the key of
	// harness.RunOptions.Agents (and TestOptions.Agents, evalrun's
	// Options.Agents) whose runner, bridge.Runner of the agent, runs it.
	// Exactly one of Go and Command is set.
	Go string
	// Command is a program in any language and its arguments
	// (setup.agent.command), run by bridge.Command in the workspace
	// directory with its model endpoints pointed at the bridge.
	Command []string
	// Env holds variables added to the command's environment
	// (setup.agent.env); nil adds none.
	Env map[string]string
	// PassEnv names variables of tapeloop's own environment the command
	// gets as they are, when set (setup.agent.pass_env): GOFLAGS,
	// NODE_OPTIONS, a proxy's address. None may look like a credential
	// (CredentialShaped) or be one the run sets itself (HOME, TMPDIR, the
	// wire formats' endpoint variables, TAPELOOP_*); nil passes none.
	PassEnv []string
	// PassCredentials names credential-shaped variables of tapeloop's
	// environment the command gets as they are, when set
	// (setup.agent.pass_credentials): the scenario says so, since a
	// replay then hands the agent a real secret. Nil passes none.
	PassCredentials []string
	// Timeout is how long the command may run (setup.agent.timeout); 0
	// means DefaultAgentTimeout.
	Timeout time.Duration
	// Line is the line of setup.agent.
	Line int
}

// ErrBridged is wrapped by the error of running a bridged scenario
// (setup.agent) as a native one: its agent is the user's code, which only
// package bridge can run.
var ErrBridged = errors.New("a bridged scenario (setup.agent) runs its own agent through package bridge")

// DefaultAgentTimeout is how long a setup.agent.command may run when the
// scenario gives no timeout.
const DefaultAgentTimeout = 60 * time.Second

var agentKeys = []string{"go", "command", "env", "pass_env", "pass_credentials", "timeout"}

// credentialWords are the parts of a variable's name (split at '_')
// that make it look like it holds a credential.
var credentialWords = []string{"KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "AUTH", "COOKIE", "SESSION", "PRIVATE", "CERT"}

// CredentialShaped reports whether the variable name looks like it holds
// a credential: a part of it (split at '_', case ignored) is KEY, APIKEY,
// TOKEN, SECRET, PASSWORD, PASSWD, PASS, AUTH, COOKIE, SESSION, PRIVATE or
// CERT, or starts with CREDENTIAL, or recordings redact its value
// (redact.SecretEnvNames: MYSQL_PWD, PGPASSWORD). OPENAI_API_KEY, GITHUB_TOKEN,
// AWS_ACCESS_KEY_ID and GOOGLE_APPLICATION_CREDENTIALS do, and so do
// AWS_PROFILE and AWS_CONFIG_FILE, which point an SDK at one; GOFLAGS and
// HTTPS_PROXY do not.
func CredentialShaped(name string) bool {
	if u := strings.ToUpper(name); u == "AWS_PROFILE" || u == "AWS_CONFIG_FILE" || len(redact.SecretEnvNames([]string{name + "="})) > 0 {
		return true
	}
	for _, part := range strings.Split(strings.ToUpper(name), "_") {
		if slices.Contains(credentialWords, part) || strings.HasPrefix(part, "CREDENTIAL") {
			return true
		}
	}
	return false
}

// setByRun returns why a command agent's run sets the variable name itself,
// whatever tapeloop's environment holds (so pass_env could not pass it),
// and whether it does: HOME and TMPDIR, scratch directories of the run
// (bridge's agentEnviron); each wire format's variables, which point the
// agent's SDK at the bridge (wire.Format.Env, listed here since the format
// runs no HTTP: bridge's TestCommandSetsOnlyWhatPassEnvRefuses keeps the
// lists together); TAPELOOP_SCENARIO, and TAPELOOP_SANDBOX_RUN, which marks
// the processes of a run without a PID namespace (internal/sandbox).
func setByRun(name string) (why string, ok bool) {
	switch name {
	case "HOME", "TMPDIR":
		return "a scratch directory of the run, removed after it", true
	case "TAPELOOP_SCENARIO":
		return "the scenario's name", true
	case "TAPELOOP_SANDBOX_RUN":
		return "it marks the processes of the run", true
	case "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_VERTEX_BASE_URL",
		"AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "AWS_REGION":
		return "it points the agent's SDK at the bridge", true
	}
	return "", false
}

// passNames decodes a pass_env or pass_credentials list: variable names,
// each once, credential-shaped (want true) or not.
func passNames(d *yamlx.Decoder, v *yaml.Node, path string, credentials bool) ([]string, error) {
	names, err := d.Strs(v, path)
	if err != nil {
		return nil, err
	}
	for i, name := range names {
		item := v
		if i < len(v.Content) {
			item = v.Content[i]
		}
		why, runs := setByRun(name)
		switch {
		case name == "" || strings.ContainsAny(name, "=\x00"):
			return nil, d.Errf(item, path, "%q is not a variable name", name)
		case slices.Contains(names[:i], name):
			return nil, d.Errf(item, path, "%s is listed twice", name)
		case !credentials && runs:
			return nil, d.Errf(item, path, "%s is set by the run itself (%s), so tapeloop's value would never reach the agent", name, why)
		case !credentials && CredentialShaped(name):
			return nil, d.Errf(item, path, "%s looks like a credential, which a replay would hand the agent: list it under setup.agent.pass_credentials if the agent must have it", name)
		case credentials && !CredentialShaped(name):
			return nil, d.Errf(item, path, "%s does not look like a credential: list it under setup.agent.pass_env", name)
		}
	}
	return names, nil
}

func decodeAgent(d *yamlx.Decoder, n *yaml.Node) (*AgentSetup, error) {
	a := &AgentSetup{Line: n.Line}
	seen, err := d.Fields(n, "setup.agent", agentKeys, func(key string, v *yaml.Node) error {
		path := "setup.agent." + key
		var err error
		switch key {
		case "go":
			a.Go, err = d.Str(v, path)
			if err == nil && a.Go == "" {
				err = d.Errf(v, path, "empty name (want the name of your Go agent)")
			}
		case "command":
			a.Command, err = d.Strs(v, path)
			if err == nil && (len(a.Command) == 0 || a.Command[0] == "") {
				err = d.Errf(v, path, "empty command (want the program and its arguments, e.g. [node, agent.js])")
			}
		case "env":
			a.Env = map[string]string{}
			err = d.Pairs(v, path, func(name string, k, v *yaml.Node) error {
				if name == "" || strings.ContainsAny(name, "=\x00") {
					return d.Errf(k, path, "%q is not a variable name", name)
				}
				val, err := d.Str(v, yamlx.Join(path, name))
				a.Env[name] = val
				return err
			})
		case "pass_env":
			a.PassEnv, err = passNames(d, v, path, false)
		case "pass_credentials":
			a.PassCredentials, err = passNames(d, v, path, true)
		case "timeout":
			a.Timeout, err = d.Duration(v, path)
			if err == nil && a.Timeout <= 0 {
				err = d.Errf(v, path, "%s is not a positive duration", v.Value)
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	switch {
	case seen.Has("go") && seen.Has("command"):
		return nil, d.Errf(n, "setup.agent", "both go: and command: (an agent is either a Go function or a program)")
	case !seen.Has("go") && !seen.Has("command"):
		return nil, d.Errf(n, "setup.agent", "missing go: (the name of your Go agent, run by its bridge.Runner in harness.TestOptions.Agents or a registered evalrun agent) or command: (a program, e.g. [node, agent.js])")
	case seen.Has("go") && (seen.Has("env") || seen.Has("timeout") || seen.Has("pass_env") || seen.Has("pass_credentials")):
		return nil, d.Errf(n, "setup.agent", "env:, pass_env:, pass_credentials: and timeout: apply to a command: agent, not to a Go one")
	}
	return a, nil
}

// bridgedProblems lists what a bridged scenario may not hold, and why: the
// agent brings its own tools and loop, and what happens inside it (argument
// repairs and coercions, tool failure kinds and retries) never crosses the
// wire the bridge watches.
var bridgedProblems = []struct{ section, key, why string }{
	{"setup", "tools", "the agent brings its own tools"},
	{"setup", "loop", "the agent runs its own loop"},
	{"setup", "mcp", "the agent connects to its own tools"},
	{"expect", "repairs", "the agent repairs arguments inside its own code, which the bridge does not see"},
	{"expect", "errors", "tool failure kinds are decided inside the agent; the bridge sees only the result text it sends back"},
	{"expect", "retries", "tool retries happen inside the agent; the bridge sees only the result it sends back"},
}

// checkBridged refuses the keys a bridged scenario may not hold, naming the
// key's line and the reason.
func checkBridged(d *yamlx.Decoder, nodes map[string]*yaml.Node) error {
	for _, p := range bridgedProblems {
		n := nodes[p.section]
		if n == nil || n.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == p.key {
				return d.Errf(n.Content[i], p.section+"."+p.key, "not allowed in a bridged scenario (setup.agent): %s", p.why)
			}
		}
	}
	return nil
}
