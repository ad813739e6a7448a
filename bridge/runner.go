package bridge

import (
	"context"
	"slices"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/netguard"
	"github.com/tapeloop/tapeloop/llm/wire"
	"github.com/tapeloop/tapeloop/scenario"
)

// Options configures Runner. A nil *Options is the zero value.
type Options struct {
	// Wire configures how answers are encoded; nil means wire's defaults.
	Wire *wire.Options
	// RequireSandbox makes a setup.agent.command fail (ErrNoSandbox) where
	// its sandbox cannot give every guarantee (see Command), instead of
	// running with those it can; the environment variable
	// TAPELOOP_REQUIRE_SANDBOX=1 does the same. False runs with what holds.
	RequireSandbox bool
}

// Runner returns the harness.Runner that runs a bridged scenario with
// agent, as an http.RoundTripper sits behind an http.Client: give it to
// harness.RunOptions.Agents (or TestOptions.Agents, VerifyOptions.Agents)
// under the name the scenarios' setup.agent.go gives, and harness.Run,
// Verify and Test run those scenarios through it. A scenario whose agent
// is a program (setup.agent.command) runs that program (Command) whatever
// agent is: Runner(nil, nil) is harness.RunOptions.Commands.
//
// A run seeds a new temporary directory from setup.workspace (removed
// afterwards), serves the tape to the agent (or, with the run options'
// Model set, a live model), and builds the outcome from the traffic and
// the workspace as a native run's is. Of the run options, Model, Replay
// (a replay model to use instead of one built from the tape), Redactor
// (the policy a replay built from the tape matches [REDACTED] with), User
// (a simulated user, as in a native run: after each answer it gets the
// conversation the user has seen, and its error ends the run with
// model_error naming the user model) and Observer apply. The observer
// sees the events the bridge makes of the traffic, in order: each model
// request (model_request, or model_retry for a failed request sent again
// unchanged), its answer (model_response, or model_error for every failed
// call, retried later or not), each user message (user_message), each
// turn's file effects (tool_end) and end (turn_end).
//
// The error is non-nil only when the scenario could not be run at all
// (not bridged, a Go agent's scenario and a nil agent, a workspace that
// cannot be made); an agent that fails, or a replay that diverges, is an
// outcome. A panic in agent is not recovered.
func Runner(agent Agent, opts *Options) harness.Runner {
	var w *wire.Options
	var require bool
	if opts != nil {
		w, require = opts.Wire, opts.RequireSandbox
	}
	return func(ctx context.Context, s *scenario.Scenario, ro *harness.RunOptions) (*harness.Outcome, error) {
		if ro == nil {
			ro = &harness.RunOptions{}
		}
		run := agent
		if a := s.Setup.Agent; a != nil && len(a.Command) > 0 {
			run = command(s, require)
		} else if a != nil && run == nil {
			return nil, s.ErrorAt(a.Line, "setup.agent.go", scenario.ErrBridged, "%v: this runner has no Go agent to run %q (bridge.Runner(nil, nil) runs agent programs only)", scenario.ErrBridged, a.Go)
		}
		if ro.Model != nil {
			return runScenario(netguard.Live(ctx), s, run, &runOptions{Model: ro.Model, Replay: ro.Replay, User: ro.User, Observer: ro.Observer, Wire: w})
		}
		// A replay: the in-process agent's requests through
		// http.DefaultTransport are refused, as a native scenario's
		// tools' are (harness.Run has begun the guard already when it
		// called this runner).
		ctx, guard := netguard.Begin(ctx, s.Name, append(slices.Clip(ro.AllowHosts), s.Setup.AllowHosts...))
		o, err := runScenario(ctx, s, run, &runOptions{Replay: ro.Replay, Redactor: ro.Redactor, User: ro.User, Observer: ro.Observer, Wire: w})
		if refused := guard.End(); o != nil {
			o.Refused = append(o.Refused, refused...)
		}
		return o, err
	}
}
