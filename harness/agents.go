package harness

import (
	"slices"
	"strings"

	"github.com/tapeloop/tapeloop/scenario"
)

// agent is the runner of the bridged scenario s: opts.Commands for a
// setup.agent.command, else opts.Agents[setup.agent.go]. Its error wraps
// scenario.ErrBridged and names the file, line and key.
func (opts *RunOptions) agent(s *scenario.Scenario) (Runner, error) {
	a := s.Setup.Agent
	if len(a.Command) > 0 {
		if opts.Commands == nil {
			return nil, s.ErrorAt(a.Line, "setup.agent.command", scenario.ErrBridged, "%v: no runner for agent programs (RunOptions.Commands: bridge.Runner(nil, nil))", scenario.ErrBridged)
		}
		return opts.Commands, nil
	}
	if run, ok := opts.Agents[a.Go]; ok && run != nil {
		return run, nil
	}
	known := "none is registered"
	if len(opts.Agents) > 0 {
		names := make([]string, 0, len(opts.Agents))
		for n := range opts.Agents {
			names = append(names, n)
		}
		slices.Sort(names)
		known = "registered: " + strings.Join(names, ", ")
	}
	return nil, s.ErrorAt(a.Line, "setup.agent.go", scenario.ErrBridged, "no Go agent %q (%s): %v: give RunOptions.Agents[%q] a bridge.Runner of it", a.Go, known, scenario.ErrBridged, a.Go)
}
