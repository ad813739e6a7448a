package harness

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/fixtures"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// TestCheckerNewTakesADocument: a with: node handed to a Checker as a
// whole parsed document (yaml.Unmarshal into a yaml.Node) is configured
// from the mapping it holds.
func TestCheckerNewTakesADocument(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("text: done\n"), &doc); err != nil {
		t.Fatal(err)
	}
	check, err := finalIsChecker.New(&doc)
	if err != nil {
		t.Fatalf("New(a document) = %v", err)
	}
	if err := check(&Outcome{Final: "done"}); err != nil {
		t.Errorf("final done against with.text done: %v", err)
	}
	if err := check(&Outcome{Final: "other"}); err == nil {
		t.Error("final other against with.text done passed")
	}
}

// TestCheckConfigErrorWithoutLine: a check whose New reports a bad with:
// without a line of its own is reported at the expect.check item's line.
func TestCheckConfigErrorWithoutLine(t *testing.T) {
	strict := &Checker{Name: "strict", New: func(*yaml.Node) (func(*Outcome) error, error) {
		return nil, toolkit.WithError(0, "", errors.New("bad option"))
	}}
	s, _, line := checkScenario(t, "  check: {name: strict}\n")
	err := Validate(s, &RunOptions{Checks: []*Checker{strict}})
	if want := "check.yaml:" + strconv.Itoa(line) + ": expect.check[strict].with: bad option"; err == nil || err.Error() != want {
		t.Errorf("Validate = %v, want %s", err, want)
	}
}

// TestRetriesListsOnlyRetriedTools: Retries sums the attempts after the
// first per tool, and a tool called without a retry has no entry.
func TestRetriesListsOnlyRetriedTools(t *testing.T) {
	call := func(name string, attempts int) *agent.CallRecord {
		return &agent.CallRecord{Call: llm.ToolCall{Name: name}, Attempts: make([]agent.Attempt, attempts)}
	}
	run := &agent.RunResult{Turns: []*agent.Turn{
		{Calls: []*agent.CallRecord{call("search", 3), call("read_file", 1)}},
		{Calls: []*agent.CallRecord{call("search", 2)}},
	}}
	got := retriesByTool(run)
	if len(got) != 1 || got["search"] != 3 {
		t.Errorf("Retries = %v, want map[search:3]", got)
	}
}

// TestFailureQuotesA200ByteTextWhole: a failure message quotes a text of
// up to 200 bytes whole, and cuts a longer one there with "...".
func TestFailureQuotesA200ByteTextWhole(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\nexpect:\n  said: [{contains: zzz}]\n"), "s.yaml", "s")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{200, 201} {
		text := strings.Repeat("a", n)
		o := &Outcome{Run: &agent.RunResult{Messages: []llm.Message{llm.AssistantMessage(text)}}}
		fs := Failures(s, o)
		want := `"` + text[:200] + `"`
		if n > 200 {
			want = `"` + text[:200] + `..."`
		}
		if len(fs) != 1 || !strings.HasSuffix(fs[0].Message, want) {
			t.Errorf("a %d-byte text: failures %v, want the message to end with %s", n, fs, want)
		}
	}
}

// TestExpectCallsComparesExecutedArguments: expect.calls compares the
// arguments a call ran with (after repair) when it ran, and the emitted
// ones when it never ran.
func TestExpectCallsComparesExecutedArguments(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\nexpect:\n  calls:\n    list:\n      - {name: read_file, arguments: {path: a.txt}}\n      - {name: search, arguments: {q: x}}\n"), "s.yaml", "s")
	if err != nil {
		t.Fatal(err)
	}
	repaired := &agent.CallRecord{Call: llm.ToolCall{Name: "read_file", Arguments: `{"path": "a.txt",}`}, Arguments: []byte(`{"path":"a.txt"}`)}
	neverRan := &agent.CallRecord{Call: llm.ToolCall{Name: "search", Arguments: `{"q": "x"}`}}
	o := &Outcome{Run: &agent.RunResult{Turns: []*agent.Turn{{Calls: []*agent.CallRecord{repaired, neverRan}}}}}
	if fs := Failures(s, o); len(fs) != 0 {
		t.Errorf("Failures = %v, want none", fs)
	}
}

// TestExpectCallsExactFailsOnAnyDifference: with match: exact, a call in
// the place of another, or a call missing at the end, fails expect.calls.
func TestExpectCallsExactFailsOnAnyDifference(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\nexpect:\n  calls: {list: [read_file, search]}\n"), "s.yaml", "s")
	if err != nil {
		t.Fatal(err)
	}
	made := func(names ...string) *Outcome {
		turn := &agent.Turn{}
		for _, n := range names {
			turn.Calls = append(turn.Calls, &agent.CallRecord{Call: llm.ToolCall{Name: n, Arguments: "{}"}})
		}
		return &Outcome{Run: &agent.RunResult{Turns: []*agent.Turn{turn}}}
	}
	if fs := Failures(s, made("read_file", "search")); len(fs) != 0 {
		t.Errorf("the same calls: %v", fs)
	}
	for _, names := range [][]string{{"read_file", "write_file"}, {"read_file"}} {
		fs := Failures(s, made(names...))
		if len(fs) != 1 || fs[0].Key != "calls" || !strings.Contains(fs[0].Message, "> search (any arguments)") {
			t.Errorf("calls %v: failures %v; want expect.calls to fail at search", names, fs)
		}
	}
}

// TestExpectCallsMarksTheFirstMissingItem: when the first expected call
// has no match, the side-by-side view marks it, not a later unexpected
// call.
func TestExpectCallsMarksTheFirstMissingItem(t *testing.T) {
	fs := callsFailures(t, "{match: any_order, list: [search, read_file]}", "read_file", "write_file")
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "> search (any arguments)") || strings.Contains(fs[0].Message, "> -") {
		t.Errorf("failures %v; want the mark on the missing search", fs)
	}
}

// TestExpectCallsShowsEveryCall: the side-by-side view of a failed
// expect.calls shows every call made, the first included, and an extra
// call past the end of an exact list is the marked mismatch.
func TestExpectCallsShowsEveryCall(t *testing.T) {
	fs := callsFailures(t, "{list: [read_file]}", "read_file", "search")
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "read_file (any arguments)   read_file {}") || !strings.Contains(fs[0].Message, "> -") || !strings.HasSuffix(fs[0].Message, "search {}") {
		t.Errorf("failures %v; want both calls shown and the extra search marked", fs)
	}
}

// TestExpectCallsShowsEachCallOnce: in the any_order view, a call paired
// with a later expected item is shown once, beside that item.
func TestExpectCallsShowsEachCallOnce(t *testing.T) {
	fs := callsFailures(t, "{match: any_order, list: [search, read_file, write_file]}", "read_file", "search")
	if len(fs) != 1 || strings.Count(fs[0].Message, "read_file {}") != 1 || strings.Count(fs[0].Message, "search {}") != 1 || !strings.Contains(fs[0].Message, "> write_file (any arguments)") {
		t.Errorf("failures %v; want each call shown once and write_file marked", fs)
	}
}

// callsFailures checks a scenario whose expect.calls is calls against one
// turn that called names, each with {}, and returns the failures.
func callsFailures(t *testing.T, calls string, names ...string) []Failure {
	t.Helper()
	s, err := scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\nexpect:\n  calls: "+calls+"\n"), "s.yaml", "s")
	if err != nil {
		t.Fatal(err)
	}
	turn := &agent.Turn{}
	for _, name := range names {
		turn.Calls = append(turn.Calls, &agent.CallRecord{Call: llm.ToolCall{Name: name, Arguments: "{}"}})
	}
	return Failures(s, &Outcome{Run: &agent.RunResult{Turns: []*agent.Turn{turn}}})
}

// TestExpectSaidWithNoAssistantText: a said item against a run that
// wrote no assistant text says so, instead of listing none.
func TestExpectSaidWithNoAssistantText(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\nexpect:\n  said: [{contains: zzz}]\n"), "s.yaml", "s")
	if err != nil {
		t.Fatal(err)
	}
	fs := Failures(s, &Outcome{Run: &agent.RunResult{}})
	if len(fs) != 1 || !strings.HasSuffix(fs[0].Message, `expected an assistant message to contain "zzz", the run has no assistant text`) {
		t.Errorf("failures %v; want the run to have no assistant text", fs)
	}
}

// TestExpectCallsAnyOrderRepairsAPairing: with match: any_order, an item
// that took a call another item needs moves to a call it also fits, so
// both are paired.
func TestExpectCallsAnyOrderRepairsAPairing(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\nexpect:\n  calls:\n    match: any_order\n    list:\n      - read_file\n      - {name: read_file, arguments: {path: x.txt}}\n"), "s.yaml", "s")
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) *agent.CallRecord {
		args := `{"path":"` + path + `"}`
		return &agent.CallRecord{Call: llm.ToolCall{Name: "read_file", Arguments: args}}
	}
	o := &Outcome{Run: &agent.RunResult{Turns: []*agent.Turn{{Calls: []*agent.CallRecord{read("x.txt"), read("y.txt")}}}}}
	if fs := Failures(s, o); len(fs) != 0 {
		t.Errorf("failures %v; want read_file(y.txt) for the first item and read_file(x.txt) for the second", fs)
	}
}

// TestExpectCallsViewClipsAfter100Bytes: the side-by-side view shows a
// call of 100 bytes whole and cuts a longer one to 99 bytes and "…".
func TestExpectCallsViewClipsAfter100Bytes(t *testing.T) {
	for _, n := range []int{100, 101} {
		name := strings.Repeat("s", n-len(" {}"))
		fs := callsFailures(t, "{list: [read_file]}", name)
		shown := name + " {}"
		if n > 100 {
			shown = shown[:99] + "…"
		}
		if len(fs) != 1 || !strings.Contains(fs[0].Message, "   "+shown+"\n") && !strings.HasSuffix(fs[0].Message, "   "+shown) {
			t.Errorf("a %d-byte call: failures %v; want it shown as %q", n, fs, shown)
		}
	}
}

// TestJudgeScoresAreShownExactly: a failing judge item shows the score
// and the threshold as written, all their digits.
func TestJudgeScoresAreShownExactly(t *testing.T) {
	s, o := parseRun(t, strings.Replace(judgeScenario, "threshold: 0.8", "threshold: 0.85", 1))
	o.Judged = []JudgeResult{
		{Verdict: &tape.Verdict{Model: "test/judge", Score: 1, Pass: true}},
		{Verdict: &tape.Verdict{Model: "test/strict", Score: 0.75, Reason: "unsure"}},
	}
	fs := Failures(s, o)
	if len(fs) != 1 || fs[0].Message != "j.yaml:11: expect.judge[1]: the judge (test/strict) scored 0.75, below the threshold 0.85: unsure" {
		t.Errorf("failures %+v", fs)
	}
}

// TestReplayVerdictsWithNothingRecorded: a replay of judge items with no
// verdict recorded fails each saying how to record one; a recorded
// verdict with no item is reported unused.
func TestReplayVerdictsWithNothingRecorded(t *testing.T) {
	s, o := parseRun(t, judgeScenario)
	replayVerdicts(s, o, redact.Default(), "evalrun", s.Path)
	fs := Failures(s, o)
	if len(fs) != 2 || !strings.HasPrefix(fs[0].Message, "j.yaml:10: expect.judge[0]: no verdict recorded for this rubric") {
		t.Errorf("no verdicts: failures %+v", fs)
	}

	noItems := judgeScenario[:strings.Index(judgeScenario, "expect:")] +
		"judge:\n  - {rubric: r, model: test/judge, on: final, judged: x, score: 1, pass: true, reason: ok}\n"
	s, o = parseRun(t, noItems)
	replayVerdicts(s, o, redact.Default(), "evalrun", s.Path)
	if len(o.Unused) != 1 || !strings.HasPrefix(o.Unused[0], "j.yaml:9: judge[0]: no expect.judge item uses this recorded verdict") {
		t.Errorf("no items: Unused = %q, want the recorded verdict", o.Unused)
	}
}

// TestUnknownToolListsTheFixtures: naming no known tool, with no tools
// of your own, lists the fixtures alone.
func TestUnknownToolListsTheFixtures(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\nsetup:\n  tools: [abacus]\ninput: [{role: user, content: hi}]\ntape: []\n"), "u.yaml", "u")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), s, nil)
	if err == nil || !strings.HasSuffix(err.Error(), `unknown tool "abacus" (known: fixtures `+strings.Join(fixtures.Names(), ", ")+")") {
		t.Errorf("Run = %v, want the fixtures listed alone", err)
	}
}

// TestJudgeTakesRecordedVerdictsOnlyInAReplay: Judge re-uses the
// scenario's recorded verdicts for an outcome not judged live, and keeps
// the verdicts of one that was.
func TestJudgeTakesRecordedVerdictsOnlyInAReplay(t *testing.T) {
	recorded, err := tape.EncodeVerdicts([]tape.Verdict{
		{Rubric: "names the key", Model: "test/judge", On: "final", Judged: "the key is [REDACTED]", Score: 1, Pass: true, Reason: "yes"},
		{Rubric: "is confident", Model: "test/strict", On: "transcript", Judged: "-", Score: 0.7, Pass: true, Reason: "unsure"},
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "j.yaml")
	src, err := scenario.SetValue([]byte(judgeScenario), path, []string{"judge"}, recorded)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Parse(src, path, "j")
	if err != nil {
		t.Fatal(err)
	}
	run := func() *Outcome {
		o, err := Run(context.Background(), s, nil)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	// A replay: the first verdict is re-used (the final text is the one
	// judged); the transcript changed, so the second item has none.
	v := judgeOutcome(s, run(), &VerifyOptions{Update: true})
	if v.Err != nil || len(v.Failures) != 1 || !strings.Contains(v.Failures[0], "expect.judge[1]") || !strings.Contains(v.Failures[0], "the judged text changed") {
		t.Errorf("replay: %v %q; want only judge[1] failing on its changed text", v.Err, v.Failures)
	}
	// Judged live: both verdicts stand as given.
	live := run()
	live.Judged = []JudgeResult{{Verdict: &tape.Verdict{Model: "test/judge", Score: 1, Pass: true}}, {Verdict: &tape.Verdict{Model: "test/strict", Score: 0.9}}}
	if v := judgeOutcome(s, live, &VerifyOptions{Update: true}); v.Err != nil || len(v.Failures) != 0 {
		t.Errorf("live: %v %q; want the live verdicts to pass", v.Err, v.Failures)
	}
}
