package scenario

import (
	"errors"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
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

var agentKeys = []string{"go", "command", "env", "timeout"}

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
	case seen.Has("go") && (seen.Has("env") || seen.Has("timeout")):
		return nil, d.Errf(n, "setup.agent", "env: and timeout: apply to a command: agent, not to a Go one")
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
