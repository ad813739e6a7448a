package harness

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

func TestCheck(t *testing.T) {
	// Each expect block is appended to demoScenario; $LINE is the line of
	// its first key's value.
	line := strconv.Itoa(strings.Count(demoScenario, "\n") + 2)
	cases := []struct {
		name   string
		expect string
		want   []string
		// keys are the expectations failed, as reports count them, when
		// they are not the key under expect (files name the file).
		keys []string
	}{
		{name: "all hold", expect: `
  termination: final_text
  iterations: 2
  tool_calls: [write_file, fetch_weather, calculator, delete_file]
  retries: {fetch_weather: 2, write_file: 0}
  repairs: {call_1: [trailing_comma], call_2: []}
  errors: {call_3: validation}
  final: {equals: done}
  files: {notes.txt: "hello\nworld\n", old.txt: null}`},
		{name: "final contains and matches hold", expect: "\n  final: {contains: on, matches: '^d.n'}"},
		{name: "termination", expect: "\n  termination: max_iterations",
			want: []string{"$FILE:$LINE: expect.termination: expected max_iterations, found final_text"}},
		{name: "iterations", expect: "\n  iterations: 3",
			want: []string{"$FILE:$LINE: expect.iterations: expected 3 model calls, found 2"}},
		{name: "tool_calls", expect: "\n  tool_calls: [write_file, calculator]",
			want: []string{"$FILE:$LINE: expect.tool_calls: expected [write_file, calculator], found [write_file, fetch_weather, calculator, delete_file]"}},
		{name: "retries", expect: "\n  retries: {fetch_weather: 1, write_file: 2}",
			want: []string{
				"$FILE:$LINE: expect.retries: expected fetch_weather to be retried 1 time, found 2",
				"$FILE:$LINE: expect.retries: expected write_file to be retried 2 times, found 0",
			}},
		{name: "repairs", expect: "\n  repairs: {call_1: [trim], call_9: [trailing_comma]}",
			want: []string{
				"$FILE:$LINE: expect.repairs: expected call call_1 to be repaired with [trim], found [trailing_comma]",
				"$FILE:$LINE: expect.repairs: expected call call_9 to be repaired with [trailing_comma], found no call call_9",
			}},
		{name: "errors", expect: "\n  errors: {call_1: validation, call_3: transient, call_9: panic}",
			want: []string{
				`$FILE:$LINE: expect.errors: expected call call_1 to fail with validation, found a success: "overwrote notes.txt (12 bytes)"`,
				`$FILE:$LINE: expect.errors: expected call call_3 to fail with transient, found validation: "error (validation): division by zero. Fix: give a non-zero b, or do not divide"`,
				"$FILE:$LINE: expect.errors: expected call call_9 to fail with panic, found no call call_9",
			}},
		{name: "final equals", expect: "\n  final: {equals: finished}",
			want: []string{`$FILE:$LINE: expect.final: expected the final text to equal "finished", found "done"`}},
		{name: "final equals a part", expect: "\n  final: {equals: don}",
			want: []string{`$FILE:$LINE: expect.final: expected the final text to equal "don", found "done"`}},
		{name: "tool_calls in another order", expect: "\n  tool_calls: [fetch_weather, write_file, calculator, delete_file]",
			want: []string{"$FILE:$LINE: expect.tool_calls: expected [fetch_weather, write_file, calculator, delete_file], found [write_file, fetch_weather, calculator, delete_file]"}},
		{name: "retries zero", expect: "\n  retries: {fetch_weather: 0}",
			want: []string{"$FILE:$LINE: expect.retries: expected fetch_weather to be retried 0 times, found 2"}},
		{name: "final contains", expect: "\n  final: {contains: finish}",
			want: []string{`$FILE:$LINE: expect.final: expected the final text to contain "finish", found "done"`}},
		{name: "final matches", expect: "\n  final: {matches: '^fin'}",
			want: []string{`$FILE:$LINE: expect.final: expected the final text to match "^fin", found "done"`}},
		{name: "files", expect: "\n  files: {notes.txt: \"hello\\n\", old.txt: \"bye\\n\", new.txt: null}",
			want: []string{
				`$FILE:$LINE: expect.files: expected notes.txt to hold "hello\n", found "hello\nworld\n"`,
				`$FILE:$LINE: expect.files: expected old.txt to hold "bye\n", found no such file`,
			},
			keys: []string{"files[notes.txt]", "files[old.txt]"}},
		{name: "file that must not exist", expect: "\n  files: {notes.txt: null}",
			want: []string{`$FILE:$LINE: expect.files: expected notes.txt not to exist, found it with "hello\nworld\n"`},
			keys: []string{"files[notes.txt]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := scenario.Parse([]byte(demoScenario+"expect:"+c.expect+"\n"), "check.yaml", "check")
			if err != nil {
				t.Fatal(err)
			}
			o, err := Run(context.Background(), s, nil)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, w := range c.want {
				want = append(want, strings.NewReplacer("$FILE", "check.yaml", "$LINE", line).Replace(w))
			}
			if got := checkAll(s, o); !slices.Equal(got, want) {
				t.Errorf("Check:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			// Each failure is reached by its parts: the file, line and key
			// of the expectation, and the expectation reports count.
			for i, f := range Failures(s, o) {
				key, _, _ := strings.Cut(strings.TrimPrefix(want[i], "check.yaml:"+line+": "), ":")
				expectation := strings.TrimPrefix(key, "expect.")
				if c.keys != nil {
					expectation = c.keys[i]
				}
				if f.File != "check.yaml" || strconv.Itoa(f.Line) != line || f.Key != key || !errors.Is(f, ErrExpectation) || expectationOf(f) != expectation {
					t.Errorf("failure %d = %+v (expectation %q), want at check.yaml:%s, key %s, expectation %q", i, *f, expectationOf(f), line, key, expectation)
				}
			}
		})
	}
}

func TestCheckWithoutExpect(t *testing.T) {
	s, err := scenario.Parse([]byte(demoScenario), "check.yaml", "check")
	if err != nil {
		t.Fatal(err)
	}
	o, err := Run(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := checkAll(s, o); got != nil {
		t.Errorf("Check without expect = %v, want nil", got)
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

// TestFailuresWithoutARunRecord: an outcome with no run record (Run nil)
// has called no tool and retried none, and a call it is expected to have
// made is reported missing: the checks fail with messages, never a panic.
func TestFailuresWithoutARunRecord(t *testing.T) {
	s, err := scenario.Parse([]byte(`format: tapeloop/v1
input: [{role: user, content: hi}]
tape: []
expect:
  tool_calls: [search]
  retries: {search: 1}
  repairs: {c1: [trailing_comma]}
  errors: {c2: timeout}
`), "r.yaml", "r")
	if err != nil {
		t.Fatal(err)
	}
	o := &Outcome{Termination: "final_text"}
	if got := o.CalledTools(); got == nil || len(got) != 0 {
		t.Errorf("CalledTools() = %#v; want empty", got)
	}
	if got := o.Retries(); got == nil || len(got) != 0 {
		t.Errorf("Retries() = %#v; want empty", got)
	}
	var got []string
	for _, f := range Failures(s, o) {
		got = append(got, f.Error())
	}
	want := []string{
		"r.yaml:5: expect.tool_calls: expected [search], found []",
		"r.yaml:6: expect.retries: expected search to be retried 1 time, found 0",
		"r.yaml:7: expect.repairs: expected call c1 to be repaired with [trailing_comma], the run has no record",
		"r.yaml:8: expect.errors: expected call c2 to fail with timeout, the run has no record",
	}
	if !slices.Equal(got, want) {
		t.Errorf("failures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// checkAll is the text of each failure Failures returns, in order; nil
// when none failed.
func checkAll(s *scenario.Scenario, o *Outcome, checks ...*Checker) []string {
	var out []string
	for _, f := range Failures(s, o, checks...) {
		out = append(out, f.Error())
	}
	return out
}

// expectationOf is the expectation f is the failure of, as reports count
// it ("files[notes.txt]"); "" when f is no expectation's failure.
func expectationOf(f error) string {
	var x interface{ Expectation() string }
	if !errors.As(f, &x) {
		return ""
	}
	return x.Expectation()
}
