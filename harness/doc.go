// Package harness replays scenarios through the full tool runtime and
// checks what happened against golden files and expectations.
//
// A scenario (format tapeloop/v1, specified in docs/scenario-format.md of
// the repository; package scenario reads it) sets up a workspace and tools
// (fixtures, or your own), gives the conversation the run starts from, the
// tape of recorded model responses, and an optional expect block. Running it:
//
//  1. scenario.Load parses the file strictly: an unknown key, a wrong type,
//     a bad value, an unknown format version is an error "file:line: key:
//     problem" that matches scenario.ErrScenario (or tape.ErrFormat for
//     the tape).
//  2. Run builds an in-memory workspace (setup.workspace.from, then
//     files), registers each setup.tools entry built from package fixtures (or
//     from one of RunOptions.Tools) in a registry whose repairer is the llm/repair cascade, and runs agent.Run
//     with a replay.Model serving the tape, a virtual clock (retries, delays and
//     timeouts take no wall time), the llm/textcalls extractor, and
//     AwaitAsync. A diffrecorder.Recorder turns each turn's file effects into
//     unified diffs.
//  3. The result is an Outcome: per turn, the response and each call's
//     arguments as received and as executed, repairs, coercions, attempts,
//     failure kind, result and effects, and the turn's diff; then the
//     termination, the final text, the end state of the workspace and the
//     state of the worlds your tools share (state:). Its
//     Golden form is canonical YAML in which nothing depends on time,
//     scheduling, the machine or the working directory.
//  4. Verify (VerifyScenario for a loaded scenario) compares that with the
//     golden file beside the scenario (name.golden.yaml), showing the first
//     difference in context, or rewrites it atomically with Update; checks
//     the expect block (Failures); and fails a run that diverged from
//     a recorded request.
//
// Validate builds a scenario's workspace and tools without running it, for
// a lint (scenario.LintOptions.Validate).
//
// # Your own agent
//
// A bridged scenario (setup.agent) runs your agent instead of the loop
// above, its model endpoint pointed at the tape. Run, Verify and Test run
// it through a Runner: the one RunOptions.Agents (TestOptions.Agents)
// holds under the name setup.agent.go gives, bridge.Runner of your agent,
// or RunOptions.Commands for a setup.agent.command. Run makes that fork,
// so one Test runs a folder holding both kinds.
//
// # Your tools
//
// A scenario names your tools in setup.tools exactly as it names fixtures.
// Wrap each in a factory with toolkit.NewFactory; it is called once per run
// with the run's toolkit.Env (workspace, seed, clock, iteration) and the
// entry's with: node (decode it with toolkit.DecodeWith). Tools that share
// state beyond files get it from toolkit.Shared, one value per run; if that
// value implements toolkit.World, its State() snapshot goes into the golden
// under state.KEY, where expect.state checks it as a whole or by JSON
// pointer (state: {/orders/A1/status: cancelled}). Hand the factories to
// RunOptions.Tools, VerifyOptions.Tools, TestOptions.Tools, the Ginkgo
// suite (package ginkgoharness) or evalrun.Options.Tools (a main of your
// own around the evalrun command). A factory whose name is a fixture's is
// an error naming it; an unknown name in setup.tools lists both
// sets.
//
//	var lookupOrder = toolkit.NewFactory("lookup_order", "looks an order up (read)",
//		func(name string, env *toolkit.Env, _ struct{}) (tools.Tool, error) {
//			store := toolkit.Shared(env, "orders", newStore) // *store implements toolkit.World
//			return tools.New(tools.Spec{Name: name, Description: "Look an order up by id.",
//				Safety: tools.Safety{SideEffects: tools.SideEffectRead, Idempotent: true}}, store.lookup)
//		})
//
//	o, err := harness.Run(ctx, s, &harness.RunOptions{Tools: []*toolkit.Factory{lookupOrder}})
//
// A Spec that leaves Safety zero is treated as possibly changing the world
// (see package tools): declare what is true of your tool.
//
// Checks of your own are registered the same way: NewChecker names a Go
// function of the outcome and of a with: decoded strictly into a struct,
// which a scenario calls from expect.check ({name, with} or a list). Hand
// them to VerifyOptions.Checks, TestOptions.Checks, RunOptions.Checks (for
// Validate, what lint calls) or evalrun.Options.Checks; an expect.check
// naming no registered check fails (docs/scoring.md).
//
// examples/orders in the repository is a whole agent with two tools, three
// scenarios and their goldens.
//
// # Your loop
//
// If you drive agent.Run yourself, a Recorder (NewRecorder) watching the run
// turns its result into an Outcome with per-turn diffs, and so into a golden
// (Outcome.Golden, CompareGolden).
//
// # In a Go test
//
// Test replays every scenario of a folder, one subtest per scenario named
// by the scenario, with -update through a flag you declare:
//
//	var _ = flag.Bool("update", false, "rewrite the golden files")
//
//	func TestScenarios(t *testing.T) {
//		harness.Test(t, "scenarios", nil)
//	}
//
// or one scenario at a time:
//
//	v := harness.Verify(ctx, "scenarios/files/append-line.yaml", nil)
//	if err := v.Failure(); err != nil {
//		t.Fatal(err)
//	}
//
// Each of a Verdict's Failures is a *fileerr.Error: its File, Line and Key
// locate it (an expectation's is its key under expect), and it unwraps to
// its kind, such as ErrExpectation or ErrNoGolden.
//
// Ginkgo users: package ginkgoharness (a module of its own) has
// DescribeScenarios and Gomega matchers on an *Outcome; this package does not
// link Ginkgo.
package harness
