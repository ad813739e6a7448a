package harness

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

// reusedIDs is a scenario whose model reuses call ids across turns.
var reusedIDs = readTestdata("reused-ids.yaml")

func TestCheckCallsSaidAndPositions(t *testing.T) {
	line := strconv.Itoa(strings.Count(reusedIDs, "\n") + 2)
	cases := []struct {
		name, expect string
		want         []string
	}{
		{name: "exact holds", expect: `
  calls:
    list:
      - {name: echo, arguments: {user_id: mia, passengers: 1.0}}
      - name: calculator
      - {name: echo, arguments: {passengers: 2}, partial: true}`},
		{name: "in_order, only and failed: false hold", expect: `
  calls: {match: in_order, list: [echo, echo]}
  said:
    - {contains: "23553"}
    - {contains: "BOOKED", ignore_case: true}
    - {matches: "refund of \\$[0-9]+", ignore_case: true}
    - {equals: "booked 23553.", ignore_case: true}`},
		{name: "only", expect: "\n  calls: {only: [echo], list: [echo, echo]}"},
		{name: "failed false", expect: "\n  calls: {failed: false, list: [echo, echo]}"},
		{name: "none of these tools", expect: "\n  calls: {only: [cancel_reservation], list: []}"},
		{name: "any_order holds", expect: "\n  calls: {match: any_order, list: [calculator, echo, {name: echo, arguments: {user_id: mia, passengers: 1}}]}"},
		{name: "positions hold", expect: "\n  errors: {{turn: 1, call: 2}: validation}\n  repairs: {{turn: 3, call: 1}: []}"},
		{name: "exact mismatch", expect: `
  calls:
    list:
      - {name: echo, arguments: {user_id: mia, passengers: 3}}
      - calculator`,
			want: []string{`$FILE:$NEXT: expect.calls: the calls made do not fit the list (match: exact; > marks the first mismatch):
    expected                                actual
  > echo {"passengers":3,"user_id":"mia"}   echo {"passengers":1,"user_id":"mia"}
    calculator (any arguments)              calculator {"a":1,"b":0,"operation":"divide"} (failed)
    -                                       echo {"passengers":2,"user_id":"mia"}`}},
		{name: "in_order mismatch", expect: `
  calls:
    match: in_order
    list:
      - calculator
      - {name: echo, arguments: {passengers: 1}, partial: true}`,
			want: []string{`$FILE:$NEXT: expect.calls: the calls made do not fit the list (match: in_order; > marks the first mismatch):
    expected                     actual
    -                            echo {"passengers":1,"user_id":"mia"}
    calculator (any arguments)   calculator {"a":1,"b":0,"operation":"divide"} (failed)
  > echo {"passengers":1,…}      -
    -                            echo {"passengers":2,"user_id":"mia"}`}},
		{name: "in_order: one call fits one item only", expect: "\n  calls: {match: in_order, only: [calculator], list: [calculator, calculator]}",
			want: []string{`$FILE:$LINE: expect.calls: the calls made do not fit the list (match: in_order; only: [calculator]; > marks the first mismatch):
    expected                     actual
    calculator (any arguments)   calculator {"a":1,"b":0,"operation":"divide"} (failed)
  > calculator (any arguments)   -`}},
		{name: "any_order extra call", expect: "\n  calls: {match: any_order, only: [echo], list: [{name: echo, arguments: {passengers: 2, user_id: mia}}]}",
			want: []string{`$FILE:$LINE: expect.calls: the calls made do not fit the list (match: any_order; only: [echo]; > marks the first mismatch):
    expected                                actual
  > -                                       echo {"passengers":1,"user_id":"mia"}
    echo {"passengers":2,"user_id":"mia"}   echo {"passengers":2,"user_id":"mia"}`}},
		{name: "none of these tools, but one was", expect: "\n  calls: {only: [calculator], failed: false, list: []}\n  said: [{contains: cancelled}]",
			want: []string{
				`$FILE:$NEXT: expect.said[0]: expected an assistant message to contain "cancelled", found none among 2: "Booked 23553.", "Refund of $120 issued."`,
			}},
		{name: "said and calls fail", expect: "\n  calls: {only: [calculator], list: []}\n  said:\n    - {equals: booked 23553.}\n    - {matches: '^refund', ignore_case: true}",
			want: []string{
				`$FILE:$LINE: expect.calls: the calls made do not fit the list (match: exact; only: [calculator]; > marks the first mismatch):
    expected   actual
  > -          calculator {"a":1,"b":0,"operation":"divide"} (failed)`,
				`$FILE:$SAID: expect.said[0]: expected an assistant message to equal "booked 23553.", found none among 2: "Booked 23553.", "Refund of $120 issued."`,
			}},
		{name: "reused id is ambiguous", expect: "\n  errors: {c1: validation}\n  repairs: {c1: []}",
			want: []string{
				"$FILE:$REPAIRS: expect.repairs: expected call c1 to be repaired with [], the id c1 names 2 calls ({turn: 1, call: 1}, {turn: 3, call: 1}); name one by position, as {turn: 1, call: 1}",
				"$FILE:$LINE: expect.errors: expected call c1 to fail with validation, the id c1 names 2 calls ({turn: 1, call: 1}, {turn: 3, call: 1}); name one by position, as {turn: 1, call: 1}",
			}},
		{name: "positions that fail", expect: "\n  errors: {{turn: 3, call: 1}: validation, {turn: 9, call: 1}: failed, {turn: 1, call: 3}: failed}",
			want: []string{
				"$FILE:$LINE: expect.errors: expected call {turn: 1, call: 3} to fail with failed, found no call {turn: 1, call: 3}: turn 1 made 2 calls",
				`$FILE:$LINE: expect.errors: expected call {turn: 3, call: 1} to fail with validation, found a success: "{\"passengers\":2,\"user_id\":\"mia\"}"`,
				"$FILE:$LINE: expect.errors: expected call {turn: 9, call: 1} to fail with failed, found no call {turn: 9, call: 1}: the run has 4 turns",
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := reusedIDs + "expect:" + c.expect + "\n"
			s, err := scenario.Parse([]byte(text), "calls.yaml", "calls")
			if err != nil {
				t.Fatal(err)
			}
			o, err := Run(context.Background(), s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if o.Diverged || len(o.Unused) != 0 {
				t.Fatalf("the run left its tape: %s %s", o.Error, o.Unused)
			}
			lines := strings.Split(text, "\n")
			lineOf := func(prefix string) string {
				for i, l := range lines {
					if strings.HasPrefix(strings.TrimSpace(l), prefix) {
						return strconv.Itoa(i + 1)
					}
				}
				return "?"
			}
			next, _ := strconv.Atoi(line)
			r := strings.NewReplacer("$FILE", "calls.yaml", "$LINE", line, "$NEXT", strconv.Itoa(next+1), "$SAID", lineOf("- {equals"), "$REPAIRS", lineOf("repairs:"))
			var want []string
			for _, w := range c.want {
				want = append(want, r.Replace(w))
			}
			if got := checkAll(s, o); !slices.Equal(got, want) {
				t.Errorf("Check:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestCallsAndSaidDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ expect, want string }{
		{"calls: {match: sorted, list: []}", `calls.yaml:18: expect.calls.match: unknown value "sorted" (want exact | in_order | any_order)`},
		{"calls: {only: [echo]}", `calls.yaml:18: expect.calls: missing key "list" (the expected calls; list: [] with only: means none of those tools was called)`},
		{"calls: {failed: true, list: []}", `calls.yaml:18: expect.calls.failed: failed: true is the default (failed calls count); write failed: false to leave them out`},
		{"calls: {list: [{arguments: {}}]}", `calls.yaml:18: expect.calls.list[0]: missing key "name"`},
		{"calls: {list: [{name: echo, partial: true}]}", `calls.yaml:18: expect.calls.list[0]: partial: true needs arguments: {...} (the keys to compare)`},
		{"calls: {list: [{name: echo, argument: {}}]}", `calls.yaml:18: expect.calls.list[0]: unknown key "argument" (want name, arguments, partial)`},
		{"calls: {list: [{name: echo, arguments: '{\"a\": '}]}", `calls.yaml:18: expect.calls.list[0].arguments: not a JSON value: unexpected EOF`},
		{"said: [hello]", `calls.yaml:18: expect.said[0]: want a mapping {equals|contains|matches: TEXT, ignore_case?}, got a string ("hello"); write {contains: "hello"}`},
		{"said: [{contains: a, equals: b}]", `calls.yaml:18: expect.said[0]: want exactly one of equals, contains and matches, found 2`},
		{"said: [{ignore_case: true}]", `calls.yaml:18: expect.said[0]: want exactly one of equals, contains and matches, found 0`},
		{"said: [{matches: 'a(', ignore_case: true}]", "calls.yaml:18: expect.said[0].matches: invalid regular expression: error parsing regexp: missing closing ): `(?i)a(`"},
		{"errors: {{turn: 1}: failed}", `calls.yaml:18: expect.errors: a call named by position needs both turn and call, as {turn: 3, call: 1}`},
		{"errors: {{turn: 0, call: 1}: failed}", `calls.yaml:18: expect.errors.turn: want an integer from 1 to 2147483648, got 0`},
		{"repairs: {[c1]: []}", `calls.yaml:18: expect.repairs: want a call id or a position {turn: N, call: M}, got a sequence`},
		{"repairs: {{turn: 1, call: 1}: [], {call: 1, turn: 1}: []}", `calls.yaml:18: expect.repairs: duplicate key "{turn: 1, call: 1}"`},
		// A position quoted by mistake is a string: not taken for an id
		// (which names no call) nor silently for the position.
		{`errors: {"{turn: 1, call: 2}": validation}`, `calls.yaml:18: expect.errors: the key "{turn: 1, call: 2}" is a string, not a {turn, call} mapping; write the position without quotes, as {turn: 1, call: 2}`},
		{`repairs: {'{ turn: 3,call: 1 }': []}`, `calls.yaml:18: expect.repairs: the key "{ turn: 3,call: 1 }" is a string, not a {turn, call} mapping; write the position without quotes, as {turn: 3, call: 1}`},
	} {
		_, err := scenario.Parse([]byte(reusedIDs+"expect:\n  "+tc.expect+"\n"), "calls.yaml", "calls")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.expect, err, tc.want)
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
		if len(fs) != 1 || expectationOf(fs[0]) != "calls" || fs[0].Key != "expect.calls" || !strings.Contains(fs[0].Error(), "> search (any arguments)") {
			t.Errorf("calls %v: failures %v; want expect.calls to fail at search", names, fs)
		}
	}
}

// TestExpectCallsMarksTheFirstMissingItem: when the first expected call
// has no match, the side-by-side view marks it, not a later unexpected
// call.
func TestExpectCallsMarksTheFirstMissingItem(t *testing.T) {
	fs := callsFailures(t, "{match: any_order, list: [search, read_file]}", "read_file", "write_file")
	if len(fs) != 1 || !strings.Contains(fs[0].Error(), "> search (any arguments)") || strings.Contains(fs[0].Error(), "> -") {
		t.Errorf("failures %v; want the mark on the missing search", fs)
	}
}

// TestExpectCallsShowsEveryCall: the side-by-side view of a failed
// expect.calls shows every call made, the first included, and an extra
// call past the end of an exact list is the marked mismatch.
func TestExpectCallsShowsEveryCall(t *testing.T) {
	fs := callsFailures(t, "{list: [read_file]}", "read_file", "search")
	if len(fs) != 1 || !strings.Contains(fs[0].Error(), "read_file (any arguments)   read_file {}") || !strings.Contains(fs[0].Error(), "> -") || !strings.HasSuffix(fs[0].Error(), "search {}") {
		t.Errorf("failures %v; want both calls shown and the extra search marked", fs)
	}
}

// TestExpectCallsShowsEachCallOnce: in the any_order view, a call paired
// with a later expected item is shown once, beside that item.
func TestExpectCallsShowsEachCallOnce(t *testing.T) {
	fs := callsFailures(t, "{match: any_order, list: [search, read_file, write_file]}", "read_file", "search")
	if len(fs) != 1 || strings.Count(fs[0].Error(), "read_file {}") != 1 || strings.Count(fs[0].Error(), "search {}") != 1 || !strings.Contains(fs[0].Error(), "> write_file (any arguments)") {
		t.Errorf("failures %v; want each call shown once and write_file marked", fs)
	}
}

// callsFailures checks a scenario whose expect.calls is calls against one
// turn that called names, each with {}, and returns the failures.
func callsFailures(t *testing.T, calls string, names ...string) []*fileerr.Error {
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
		if len(fs) != 1 || !strings.Contains(fs[0].Error(), "   "+shown+"\n") && !strings.HasSuffix(fs[0].Error(), "   "+shown) {
			t.Errorf("a %d-byte call: failures %v; want it shown as %q", n, fs, shown)
		}
	}
}

// TestExpectCallsPartialWantsAnObject: a partial item with no keys
// (arguments: {}, partial: true) fits a call whose arguments are an
// object, any object, and not one whose arguments are an array, a string
// or not JSON at all.
func TestExpectCallsPartialWantsAnObject(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\nexpect:\n  calls: {list: [{name: search, arguments: {}, partial: true}]}\n"), "s.yaml", "s")
	if err != nil {
		t.Fatal(err)
	}
	for args, fits := range map[string]bool{`{}`: true, `{"q": "x"}`: true, `[1]`: false, `"x"`: false, `not json`: false} {
		o := &Outcome{Run: &agent.RunResult{Turns: []*agent.Turn{{Calls: []*agent.CallRecord{{Call: llm.ToolCall{Name: "search", Arguments: args}}}}}}}
		if fs := Failures(s, o); (len(fs) == 0) != fits {
			t.Errorf("arguments %s: failures %v; want it to fit: %v", args, fs, fits)
		}
	}
}
