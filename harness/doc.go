// Package harness replays scenario files through the full tool runtime and
// checks what happened against golden files and expectations.
//
// A scenario (format tapeloop/v1, specified in SCENARIO_FORMAT.md) sets up a
// workspace and fixture tools, gives the conversation the run starts from, the
// tape of recorded model responses, and an optional expect block. Running it:
//
//  1. Load parses the file strictly: an unknown key, a wrong type, a bad value,
//     an unknown format version is an error "file:line: key: problem" that
//     matches ErrScenario (or replay.ErrFormat for the tape).
//  2. Scenario.Run builds an in-memory workspace (setup.workspace.from, then
//     files), registers each setup.tools entry built from package fixtures in
//     a registry whose repairer is the llm/repair cascade, and runs agent.Run
//     with a replay.Model serving the tape, a virtual clock (retries, delays and
//     timeouts take no wall time), the llm/textcalls extractor, and
//     AwaitAsync. A diffrecorder.Recorder turns each turn's file effects into
//     unified diffs.
//  3. The result is an Outcome: per turn, the response and each call's
//     arguments as received and as executed, repairs, coercions, attempts,
//     failure kind, result and effects, and the turn's diff; then the
//     termination, the final text and the end state of the workspace. Its
//     Golden form is canonical YAML in which nothing depends on time,
//     scheduling, the machine or the working directory.
//  4. Verify compares that with the golden file beside the scenario
//     (name.golden.yaml), showing the first difference in context, or rewrites
//     it atomically with Update; checks the expect block (Scenario.Check); and
//     fails a run that diverged from a recorded request.
//
// Recording writes into scenario files in place: SetTape and AppendTape
// replace or extend a file's `tape:` and SetValue any other value, keeping
// every other byte (comments, blank lines, key order) as the author wrote it
// and checking the result by parsing it; WriteTape does it to a file,
// atomically:
//
//	err := harness.WriteTape("scenarios/files/append-line.yaml", recorder.Tape().Entries)
//
// In a Go test:
//
//	v := harness.Verify(ctx, "scenarios/files/append-line.yaml", nil)
//	if !v.Passed() {
//		t.Fatal(v.Err, v.Failures)
//	}
//
// or one Ginkgo spec per scenario of a folder with DescribeScenarios, and the
// Gomega matchers MatchGolden, TerminateWith, CallToolsInOrder, RetryTool,
// RepairCall, FailCallWith, HaveFileContent and HaveNoFile on an *Outcome.
package harness
