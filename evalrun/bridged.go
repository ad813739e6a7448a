package evalrun

import (
	"context"
	"slices"
	"strings"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
)

// agentFor resolves the agent of a bridged scenario: its
// setup.agent.command run by bridge.Command, or the Go agent registered
// under its setup.agent.go (Options.Agents).
func (e *env) agentFor(s *scenario.Scenario) (bridge.Agent, error) {
	a := s.Setup.Agent
	if len(a.Command) > 0 {
		return bridge.Command(s), nil
	}
	if ag, ok := e.agents[a.Go]; ok {
		return ag, nil
	}
	known := "none is registered"
	if len(e.agents) > 0 {
		names := make([]string, 0, len(e.agents))
		for n := range e.agents {
			names = append(names, n)
		}
		slices.Sort(names)
		known = "registered: " + strings.Join(names, ", ")
	}
	return nil, scenario.Errorf("%s: setup.agent.go: no Go agent %q (%s); %s cannot compile your code: write a main that calls evalrun.Main with evalrun.Options{Agents: map[string]bridge.Agent{%q: ...}}",
		s.At(a.Line), a.Go, known, progName(), a.Go)
}

// run runs s once, natively or, for a bridged scenario, through its agent
// (opts.Model answering, or opts.Replay replaying, when set, opts.User
// the user model, and opts.Observer seeing the events the bridge makes of
// the traffic; the other options are the native loop's).
func (e *env) run(ctx context.Context, s *scenario.Scenario, opts *harness.RunOptions) (*harness.Outcome, error) {
	if s.Setup.Agent == nil {
		return harness.Run(ctx, s, opts)
	}
	agent, err := e.agentFor(s)
	if err != nil {
		return nil, err
	}
	return bridge.RunScenario(ctx, s, agent, &bridge.RunOptions{Model: opts.Model, Replay: opts.Replay, Observer: opts.Observer, User: opts.User})
}

// verify replays s and judges it, natively or through its bridged agent.
func (e *env) verify(ctx context.Context, s *scenario.Scenario, opts *harness.VerifyOptions) *harness.Verdict {
	if s.Setup.Agent == nil {
		return harness.VerifyScenario(ctx, s, opts)
	}
	failed := func(err error) *harness.Verdict {
		return &harness.Verdict{Path: s.Path, Name: s.Name, Golden: scenario.GoldenPath(s.Path), Scenario: s, Err: err}
	}
	if s.Unrecorded() {
		hints := *opts
		if hints.Command == "" {
			hints.Command = progName()
		}
		return failed(hints.NoTapeError(s.Path))
	}
	agent, err := e.agentFor(s)
	if err != nil {
		return failed(err)
	}
	o, err := bridge.RunScenario(ctx, s, agent, nil)
	if err != nil {
		return failed(err)
	}
	return harness.Judge(s, o, opts)
}
