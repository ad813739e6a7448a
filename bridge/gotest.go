package bridge

import (
	"context"
	"testing"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm/wire"
	"github.com/tapeloop/tapeloop/scenario"
)

// TestOptions configures Test. A nil *TestOptions is the zero value.
type TestOptions struct {
	// Update rewrites the golden files instead of comparing with them, as
	// harness.TestOptions.Update does (go test -update works the same way).
	Update bool
	// Agent, when set, runs only the scenarios whose setup.agent.go names
	// it (the others are skipped subtests); empty runs every bridged
	// scenario.
	Agent string
	// Wire configures how answers are encoded; nil means wire's defaults.
	Wire *wire.Options
	// Checks are your checks, which scenarios call from expect.check (see
	// harness.NewChecker); nil means none.
	Checks []*harness.Checker
	// Command is the program your module runs tapeloop's commands with (a
	// main of your own around evalrun.Main that registers your agents,
	// such as supportrun), named in hints such as how to record a
	// scenario's missing tape; empty means evalrun.
	Command string
}

// Test replays every bridged scenario under dir with agent, each as a
// subtest of t named by the scenario's name, and checks it as harness.Test
// does: a divergence from the tape, unused tape entries, the golden, each
// expectation. A scenario whose agent is a setup.agent.command runs that
// program (see Command) whatever agent is; agent may be nil when every
// scenario is one. Native scenarios (no setup.agent) are skipped subtests:
// harness.Test runs them. The agent's *testing.T is the subtest's; a
// workspace directory is made for each run and removed after it.
//
//	var _ = flag.Bool("update", false, "rewrite the golden files")
//
//	func TestMyAgent(t *testing.T) {
//		bridge.Test(t, "scenarios", func(t *testing.T, r *bridge.Run) error {
//			answer, err := myagent.Run(t.Context(), r.HTTPClient, r.OpenAIBaseURL, r.Dir, r.Input)
//			r.Final(answer)
//			return err
//		}, nil)
//	}
func Test(t *testing.T, dir string, agent func(t *testing.T, r *Run) error, opts *TestOptions) {
	t.Helper()
	if opts == nil {
		opts = &TestOptions{}
	}
	hints := harness.GoTestHints(opts.Command)
	vopts := func() *VerifyOptions {
		return &VerifyOptions{Update: opts.Update || harness.UpdateFlag(), Wire: opts.Wire, Dir: t.TempDir(), Checks: opts.Checks,
			Command: hints.Command, UpdateHint: hints.UpdateHint, HintDir: hints.HintDir}
	}
	harness.Suite(t, dir, func(t *testing.T, s *scenario.Scenario) *harness.Verdict {
		switch a := s.Setup.Agent; {
		case a == nil:
			t.Skipf("%s: a native scenario (no setup.agent); harness.Test runs it", s.Path)
		case len(a.Command) > 0:
			return Verify(t.Context(), s, Command(s), vopts())
		case agent == nil:
			t.Skipf("%s: the scenario is for Go agent %q, and this test has no agent function", s.Path, a.Go)
		case opts.Agent != "" && a.Go != opts.Agent:
			t.Skipf("%s: the scenario is for agent %q, this test runs %q", s.Path, a.Go, opts.Agent)
		}
		run := func(ctx context.Context, r *Run) error { return agent(t, r) }
		return Verify(t.Context(), s, run, vopts())
	})
}

// VerifyOptions configures Verify. A nil *VerifyOptions is the zero value.
type VerifyOptions struct {
	// Update rewrites the golden instead of comparing with it.
	Update bool
	// Dir is the empty workspace directory; "" means a temporary one.
	Dir string
	// Wire configures how answers are encoded; nil means wire's defaults.
	Wire *wire.Options
	// Checks are the checks expect.check may name (harness.NewChecker);
	// nil means none.
	Checks []*harness.Checker
	// Command, UpdateHint and HintDir name the user's commands in hints, as
	// harness.VerifyOptions' fields of those names do; empty means
	// evalrun's.
	Command, UpdateHint, HintDir string
}

// Verify replays the bridged scenario s with agent and judges the outcome
// as harness.VerifyScenario does a native run's (harness.Judge).
func Verify(ctx context.Context, s *scenario.Scenario, agent Agent, opts *VerifyOptions) *harness.Verdict {
	if opts == nil {
		opts = &VerifyOptions{}
	}
	hints := &harness.VerifyOptions{Update: opts.Update, Checks: opts.Checks, Command: opts.Command, UpdateHint: opts.UpdateHint, HintDir: opts.HintDir}
	if s.Unrecorded() {
		return &harness.Verdict{Path: s.Path, Name: s.Name, Golden: scenario.GoldenPath(s.Path), Scenario: s, Err: hints.NoTapeError(s.Path)}
	}
	o, err := RunScenario(ctx, s, agent, &RunOptions{Dir: opts.Dir, Wire: opts.Wire})
	if err != nil {
		return &harness.Verdict{Path: s.Path, Name: s.Name, Golden: scenario.GoldenPath(s.Path), Scenario: s, Err: err}
	}
	return harness.Judge(s, o, hints)
}
