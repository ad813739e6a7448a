package scenario

import (
	"errors"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
)

// AgentSetup marks a bridged scenario: the agent under test is not
// tapeloop's loop but the user's own, whose model calls reach the tape
// through package bridge (setup.agent).
type AgentSetup struct {
	// Go names the Go agent function that runs the scenario (bridge.Test
	// runs it; evalrun runs the one registered under this name).
	Go string
	// Line is the line of setup.agent.
	Line int
}

// ErrBridged is wrapped by the error of running a bridged scenario
// (setup.agent) as a native one: its agent is the user's code, which only
// package bridge can run.
var ErrBridged = errors.New("a bridged scenario (setup.agent) runs its own agent through package bridge")

var agentKeys = []string{"go"}

func decodeAgent(d *yamlx.Decoder, n *yaml.Node) (*AgentSetup, error) {
	a := &AgentSetup{Line: n.Line}
	seen, err := d.Fields(n, "setup.agent", agentKeys, func(key string, v *yaml.Node) error {
		var err error
		a.Go, err = d.Str(v, "setup.agent.go")
		if err == nil && a.Go == "" {
			err = d.Errf(v, "setup.agent.go", "empty name (want the name of your Go agent)")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !seen["go"] {
		return nil, d.Errf(n, "setup.agent", "missing go: (the name of your Go agent, run by bridge.Test or a registered evalrun agent)")
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
