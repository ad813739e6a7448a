package evalrun

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
)

// run runs s once with opts and the caller's agents (harness.Run, which
// runs a bridged scenario through its runner: Options.Agents, or
// bridge.Runner for a setup.agent.command).
func (e *env) run(ctx context.Context, s *scenario.Scenario, opts *harness.RunOptions) (*harness.Outcome, error) {
	ro := *opts
	ro.Agents, ro.Commands = e.agents, e.commands()
	if ro.AllowHosts == nil {
		ro.AllowHosts = e.allowHosts
	}
	if ro.Redactor == nil {
		ro.Redactor = e.redactor()
	}
	o, err := harness.Run(ctx, s, &ro)
	return o, e.agentHint(s, err)
}

// verify replays s and judges it (harness.VerifyScenario) with the
// caller's agents.
func (e *env) verify(ctx context.Context, s *scenario.Scenario, opts *harness.VerifyOptions) *harness.Verdict {
	vo := *opts
	vo.Agents, vo.Commands = e.agents, e.commands()
	if vo.AllowHosts == nil {
		vo.AllowHosts = e.allowHosts
	}
	if vo.Command == "" {
		vo.Command = e.prog()
	}
	v := harness.VerifyScenario(ctx, s, &vo)
	v.Err = e.agentHint(s, v.Err)
	return v
}

// agentHint adds to err, when it is a bridged scenario's missing Go agent,
// how to register one: this program cannot compile the user's code.
func (e *env) agentHint(s *scenario.Scenario, err error) error {
	a := s.Setup.Agent
	if err == nil || a == nil || a.Go == "" || e.agents[a.Go] != nil || !errors.Is(err, scenario.ErrBridged) {
		return err
	}
	return fmt.Errorf("%w; %s cannot compile your code: write a main that calls evalrun.Main with evalrun.Options{Agents: map[string]harness.Runner{%q: bridge.Runner(...)}}", err, e.prog(), a.Go)
}

// commands is the runner of agent programs (setup.agent.command), which
// requires their whole sandbox with --require-sandbox.
func (e *env) commands() harness.Runner {
	return bridge.Runner(nil, &bridge.Options{RequireSandbox: e.requireSandbox})
}

// addAllowHostFlag adds --allow-host, what an in-process replay may reach
// through http.DefaultTransport (harness.RunOptions.AllowHosts).
func addAllowHostFlag(fs *flag.FlagSet, e *env) {
	fs.Func("allow-host", "let the replay's Go tools and in-process agents reach this host, or HOST:PORT, or * for everything, through http.DefaultTransport, which a replay otherwise refuses (repeatable, or comma-separated)", func(v string) error {
		return (*stringList)(&e.allowHosts).Set(v)
	})
}

// addSandboxFlag adds --require-sandbox to fs.
func addSandboxFlag(fs *flag.FlagSet, e *env) {
	fs.BoolVar(&e.requireSandbox, "require-sandbox", false, "fail a scenario whose agent program (setup.agent.command) runs where its sandbox cannot hold every guarantee (network, files, processes: see docs/bridge.md), instead of running it with those that hold")
}
