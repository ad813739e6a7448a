package ginkgoharness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/gomega/types"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
)

// demoScenario is harness's testdata/matchers-demo.yaml.
var demoScenario = readTestdata("matchers-demo.yaml")

// readTestdata returns a file of harness's testdata/.
func readTestdata(name string) string {
	data, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		panic(err)
	}
	return string(data)
}

// runInline parses and runs a scenario given as text.
func runInline(t testing.TB, text string) *harness.Outcome {
	t.Helper()
	s, err := scenario.Parse([]byte(text), "inline.yaml", "inline")
	if err != nil {
		t.Fatal(err)
	}
	o, err := harness.Run(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

type matcherCase struct {
	name    string
	matcher types.GomegaMatcher
	actual  any
	// match is the expected result of Match; message is FailureMessage when
	// match is false, NegatedFailureMessage when it is true.
	match   bool
	message string
	// err, when set, is the misuse error Match must return.
	err string
}

func checkMatchers(t *testing.T, cases []matcherCase, replace func(string) string) {
	t.Helper()
	if replace == nil {
		replace = func(s string) string { return s }
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ok, err := c.matcher.Match(c.actual)
			if c.err != "" {
				if err == nil || replace(err.Error()) != c.err || ok {
					t.Fatalf("Match = %v, %v; want false, error:\n%s", ok, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Match: unexpected error: %v", err)
			}
			if ok != c.match {
				t.Fatalf("Match = %v, want %v", ok, c.match)
			}
			msg := c.matcher.FailureMessage(c.actual)
			if ok {
				msg = c.matcher.NegatedFailureMessage(c.actual)
			}
			if got := replace(msg); got != c.message {
				t.Errorf("message:\n%s\nwant:\n%s", got, c.message)
			}
		})
	}
}

func TestMatchers(t *testing.T) {
	o := runInline(t, demoScenario)
	noRun := &harness.Outcome{Name: "matchers/by-hand", Termination: agent.ReasonFinalText}
	empty := runInline(t, `format: tapeloop/v1
input: [{role: user, content: hi}]
tape: [{response: {content: hello}}]
`)
	checkMatchers(t, []matcherCase{
		{name: "TerminateWith/success", matcher: TerminateWith(agent.ReasonFinalText), actual: o, match: true,
			message: "Expected scenario matchers/demo not to terminate with final_text, but it did"},
		{name: "TerminateWith/mismatch", matcher: TerminateWith(agent.ReasonMaxIterations), actual: o,
			message: "Expected scenario matchers/demo to terminate with max_iterations, but it terminated with final_text"},
		{name: "TerminateWith/mismatch with error", matcher: TerminateWith(agent.ReasonFinalText),
			actual:  &harness.Outcome{Name: "x", Termination: agent.ReasonModelError, Error: "model call failed: tape exhausted"},
			message: "Expected scenario x to terminate with final_text, but it terminated with model_error (model call failed: tape exhausted)"},
		{name: "TerminateWith/not an outcome", matcher: TerminateWith(agent.ReasonFinalText), actual: "final_text",
			err: "TerminateWith expects a non-nil *harness.Outcome, got string"},
		{name: "TerminateWith/nil outcome", matcher: TerminateWith(agent.ReasonFinalText), actual: (*harness.Outcome)(nil),
			err: "TerminateWith expects a non-nil *harness.Outcome, got *harness.Outcome"},
		{name: "TerminateWith/unknown reason", matcher: TerminateWith("finished"), actual: o,
			err: `TerminateWith: unknown termination reason "finished" (known: ` + reasonList() + `)`},

		{name: "CallToolsInOrder/success", matcher: CallToolsInOrder("write_file", "fetch_weather", "calculator", "delete_file"), actual: o, match: true,
			message: "Expected scenario matchers/demo not to call the tools [write_file, fetch_weather, calculator, delete_file] in this order, but it did"},
		{name: "CallToolsInOrder/order", matcher: CallToolsInOrder("fetch_weather", "write_file", "calculator", "delete_file"), actual: o,
			message: "Expected scenario matchers/demo to call the tools [fetch_weather, write_file, calculator, delete_file] in this order, but it called [write_file, fetch_weather, calculator, delete_file]"},
		{name: "CallToolsInOrder/prefix is not enough", matcher: CallToolsInOrder("write_file"), actual: o,
			message: "Expected scenario matchers/demo to call the tools [write_file] in this order, but it called [write_file, fetch_weather, calculator, delete_file]"},
		{name: "CallToolsInOrder/no calls", matcher: CallToolsInOrder(), actual: empty, match: true,
			message: "Expected scenario inline not to call the tools [] in this order, but it did"},
		{name: "CallToolsInOrder/no run record", matcher: CallToolsInOrder(), actual: noRun,
			err: "CallToolsInOrder needs the run record, but the outcome of scenario matchers/by-hand has none (Outcome.Run is nil)"},
		{name: "CallToolsInOrder/verdict", matcher: CallToolsInOrder(), actual: &harness.Verdict{},
			err: "CallToolsInOrder expects a non-nil *harness.Outcome, got *harness.Verdict"},

		{name: "RetryTool/success", matcher: RetryTool("fetch_weather", 2), actual: o, match: true,
			message: "Expected scenario matchers/demo not to retry fetch_weather 2 times, but it did"},
		{name: "RetryTool/count", matcher: RetryTool("fetch_weather", 1), actual: o,
			message: "Expected scenario matchers/demo to retry fetch_weather 1 time, but it retried it 2 times"},
		{name: "RetryTool/not retried", matcher: RetryTool("write_file", 2), actual: o,
			message: "Expected scenario matchers/demo to retry write_file 2 times, but it retried it 0 times"},
		{name: "RetryTool/never called", matcher: RetryTool("read_file", 1), actual: o,
			message: "Expected scenario matchers/demo to retry read_file 1 time, but it never called read_file (it called [write_file, fetch_weather, calculator, delete_file])"},
		{name: "RetryTool/zero for a tool never called", matcher: RetryTool("read_file", 0), actual: o, match: true,
			message: "Expected scenario matchers/demo not to retry read_file 0 times, but it did"},
		{name: "RetryTool/negative", matcher: RetryTool("fetch_weather", -1), actual: o,
			err: "RetryTool: the retry count for fetch_weather is -1; it must be at least 0"},
		{name: "RetryTool/not an outcome", matcher: RetryTool("fetch_weather", 2), actual: o.Run,
			err: "RetryTool expects a non-nil *harness.Outcome, got *agent.RunResult"},

		{name: "RepairCall/success", matcher: RepairCall("call_1", "trailing_comma"), actual: o, match: true,
			message: "Expected call call_1 of scenario matchers/demo not to be repaired with [trailing_comma], but it was"},
		{name: "RepairCall/no repair", matcher: RepairCall("call_2"), actual: o, match: true,
			message: "Expected call call_2 of scenario matchers/demo not to be repaired with [], but it was"},
		{name: "RepairCall/other fixes", matcher: RepairCall("call_1", "trim", "trailing_comma"), actual: o,
			message: "Expected call call_1 of scenario matchers/demo to be repaired with [trim, trailing_comma], but it was repaired with [trailing_comma]"},
		{name: "RepairCall/not repaired", matcher: RepairCall("call_3", "single_quotes"), actual: o,
			message: "Expected call call_3 of scenario matchers/demo to be repaired with [single_quotes], but it was repaired with []"},
		{name: "RepairCall/missing call", matcher: RepairCall("call_9", "trailing_comma"), actual: o,
			message: "Expected call call_9 of scenario matchers/demo to be repaired with [trailing_comma], but the scenario has no call call_9 (its calls: call_1, call_2, call_3, call_4)"},
		{name: "RepairCall/missing call, no calls", matcher: RepairCall("call_1"), actual: empty,
			message: "Expected call call_1 of scenario inline to be repaired with [], but the scenario has no call call_1 (it made no calls)"},
		{name: "RepairCall/no run record", matcher: RepairCall("call_1"), actual: noRun,
			err: "RepairCall needs the run record, but the outcome of scenario matchers/by-hand has none (Outcome.Run is nil)"},

		{name: "FailCallWith/success", matcher: FailCallWith("call_3", tools.KindValidation), actual: o, match: true,
			message: `Expected call call_3 of scenario matchers/demo not to fail with validation, but it did: "error (validation): division by zero. Fix: give a non-zero b, or do not divide"`},
		{name: "FailCallWith/other kind", matcher: FailCallWith("call_3", tools.KindTransient), actual: o,
			message: `Expected call call_3 of scenario matchers/demo to fail with transient, but it failed with validation: "error (validation): division by zero. Fix: give a non-zero b, or do not divide"`},
		{name: "FailCallWith/succeeded after retries", matcher: FailCallWith("call_2", tools.KindTransient), actual: o,
			message: `Expected call call_2 of scenario matchers/demo to fail with transient, but it succeeded: "sunny, 21C"`},
		{name: "FailCallWith/missing call", matcher: FailCallWith("call_9", tools.KindValidation), actual: o,
			message: "Expected call call_9 of scenario matchers/demo to fail with validation, but the scenario has no call call_9 (its calls: call_1, call_2, call_3, call_4)"},
		{name: "FailCallWith/unknown kind", matcher: FailCallWith("call_3", "oops"), actual: o,
			err: `FailCallWith: unknown failure kind "oops"`},
		{name: "FailCallWith/not an outcome", matcher: FailCallWith("call_3", tools.KindValidation), actual: nil,
			err: "FailCallWith expects a non-nil *harness.Outcome, got <nil>"},

		{name: "HaveFileContent/success", matcher: HaveFileContent("notes.txt", "hello\nworld\n"), actual: o, match: true,
			message: `Expected scenario matchers/demo not to end with notes.txt holding "hello\nworld\n", but it does`},
		{name: "HaveFileContent/other content", matcher: HaveFileContent("notes.txt", "hello\n"), actual: o,
			message: `Expected scenario matchers/demo to end with notes.txt holding "hello\n", but it holds "hello\nworld\n"`},
		{name: "HaveFileContent/long content", matcher: HaveFileContent("big.txt", strings.Repeat("line\n", 40)+"last\n"),
			actual: &harness.Outcome{Name: "big", Workspace: []harness.FileState{{Path: "big.txt", Content: strings.Repeat("line\n", 40) + "LAST\n"}}},
			message: `Expected scenario big to end with big.txt holding "` + strings.Repeat(`line\n`, 40) + `...", but it differs (- expected, + actual; first difference):
@@ -38,4 +38,4 @@
 line
 line
 line
-last
+LAST
`},
		{name: "HaveFileContent/missing file", matcher: HaveFileContent("old.txt", "bye\n"), actual: o,
			message: `Expected scenario matchers/demo to end with old.txt holding "bye\n", but there is no such file (files: notes.txt)`},
		{name: "HaveFileContent/empty workspace", matcher: HaveFileContent("a", ""), actual: empty,
			message: `Expected scenario inline to end with a holding "", but there is no such file (the workspace is empty)`},
		{name: "HaveFileContent/no run record needed", matcher: HaveFileContent("a", "b"),
			actual: &harness.Outcome{Name: "by-hand", Workspace: []harness.FileState{{Path: "a", Content: "b"}}}, match: true,
			message: `Expected scenario by-hand not to end with a holding "b", but it does`},
		{name: "HaveFileContent/not an outcome", matcher: HaveFileContent("a", "b"), actual: harness.Outcome{},
			err: "HaveFileContent expects a non-nil *harness.Outcome, got harness.Outcome"},

		{name: "HaveNoFile/success", matcher: HaveNoFile("old.txt"), actual: o, match: true,
			message: "Expected scenario matchers/demo to end with a file old.txt, but there is no such file (files: notes.txt)"},
		{name: "HaveNoFile/exists", matcher: HaveNoFile("notes.txt"), actual: o,
			message: `Expected scenario matchers/demo to end without notes.txt, but it holds "hello\nworld\n"`},
		{name: "HaveNoFile/not an outcome", matcher: HaveNoFile("a"), actual: 3,
			err: "HaveNoFile expects a non-nil *harness.Outcome, got int"},
	}, nil)
}

func TestMatchGolden(t *testing.T) {
	o := runInline(t, demoScenario)
	golden, err := o.Golden(redact.Default())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	same := filepath.Join(dir, "same.golden.yaml")
	other := filepath.Join(dir, "other.golden.yaml")
	missing := filepath.Join(dir, "missing.golden.yaml")
	if err := os.WriteFile(same, golden, 0o644); err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(golden), "result: sunny, 21C", "result: rainy, 12C", 1)
	if err := os.WriteFile(other, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	failed := &harness.Verdict{Path: "broken.yaml", Err: os.ErrNotExist}
	checkMatchers(t, []matcherCase{
		{name: "identical", matcher: MatchGolden(same), actual: o, match: true,
			message: "Expected the outcome of scenario matchers/demo to differ from the golden file $WORK/same.golden.yaml, but it is byte-identical"},
		{name: "identical, verdict", matcher: MatchGolden(same), actual: &harness.Verdict{Outcome: o}, match: true,
			message: "Expected the outcome of scenario matchers/demo to differ from the golden file $WORK/same.golden.yaml, but it is byte-identical"},
		{name: "different", matcher: MatchGolden(other), actual: o,
			message: `the outcome differs from the golden file $WORK/other.golden.yaml (- golden, + outcome; first difference):
@@ -18,7 +18,7 @@
         retried:
           - {failure: transient, backoff: 100ms, result: 'error (transient): simulated transient failure 1 of 2'}
           - {failure: transient, backoff: 200ms, result: 'error (transient): simulated transient failure 2 of 2'}
-        result: rainy, 12C
+        result: sunny, 21C
       - id: call_3
         name: calculator
         arguments: '{"operation":"divide","a":1,"b":0}'
`},
		{name: "missing", matcher: MatchGolden(missing), actual: o,
			message: "missing golden file $WORK/missing.golden.yaml: run `evalrun replay --update` (or your test with -update) to write it, then review it"},
		{name: "unreadable", matcher: MatchGolden(dir), actual: o,
			err: "MatchGolden: reading $WORK: not a regular file (a directory); only regular files are read"},
		{name: "verdict without outcome", matcher: MatchGolden(same), actual: failed,
			err: "MatchGolden: the verdict for broken.yaml has no outcome (the scenario did not load or run: file does not exist)"},
		{name: "not an outcome", matcher: MatchGolden(same), actual: golden,
			err: "MatchGolden expects a non-nil *harness.Outcome or *harness.Verdict, got []uint8"},
		{name: "nil verdict", matcher: MatchGolden(same), actual: (*harness.Verdict)(nil),
			err: "MatchGolden expects a non-nil *harness.Outcome or *harness.Verdict, got *harness.Verdict"},
	}, func(s string) string { return strings.ReplaceAll(s, dir, "$WORK") })
}

func reasonList() string {
	names := make([]string, len(agent.Reasons))
	for i, r := range agent.Reasons {
		names[i] = string(r)
	}
	return "[" + strings.Join(names, " ") + "]"
}

// reusedIDs is harness's testdata/reused-ids.yaml.
var reusedIDs = readTestdata("reused-ids.yaml")

// TestMatchersNameCallsByPosition: RepairCall and FailCallWith accept
// CallAt, and a reused id is reported as ambiguous.
func TestMatchersNameCallsByPosition(t *testing.T) {
	o := runInline(t, reusedIDs)
	checkMatchers(t, []matcherCase{
		{name: "FailCallWith by position", matcher: FailCallWith(scenario.CallAt(1, 2), tools.KindValidation), actual: o, match: true,
			message: `Expected call {turn: 1, call: 2} of scenario inline not to fail with validation, but it did: "error (validation): division by zero. Fix: give a non-zero b, or do not divide"`},
		{name: "FailCallWith by reused id", matcher: FailCallWith("c1", tools.KindValidation), actual: o,
			message: "Expected call c1 of scenario inline to fail with validation, but the id c1 names 2 calls ({turn: 1, call: 1}, {turn: 3, call: 1}); name one by position, as {turn: 1, call: 1}"},
		{name: "RepairCall by position", matcher: RepairCall(scenario.CallAt(3, 1)), actual: o, match: true,
			message: "Expected call {turn: 3, call: 1} of scenario inline not to be repaired with [], but it was"},
		{name: "RepairCall, no such position", matcher: RepairCall(scenario.CallAt(2, 1)), actual: o,
			message: "Expected call {turn: 2, call: 1} of scenario inline to be repaired with [], but the scenario has no call {turn: 2, call: 1}: turn 2 made 0 calls"},
	}, nil)
}
