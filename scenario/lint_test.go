package scenario_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
)

func lintText(t *testing.T, text string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mistakes.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, problems := scenario.Lint(path, &scenario.LintOptions{Validate: func(s *scenario.Scenario) error { return harness.Validate(s, nil) }})
	var out []string
	for _, p := range problems {
		out = append(out, strings.ReplaceAll(scenario.LintText(p), path, "$FILE"))
	}
	return out
}

func checkLint(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLintFindsEveryMistakeAtOnce puts the realistic mistakes lint must
// catch into one file: all are reported in one run, each with its line.
func TestLintFindsEveryMistakeAtOnce(t *testing.T) {
	got := lintText(t, `format: tapeloop/v1
setup:
  workspace:
    files:
      ../escape.txt: "x"
      notes.txt: "hi\n"
  tools: [read_file]
  loop:
    retry: {attempts: 3, backoff: 100}
input: [{role: user, content: go}]
tape:
  - response:
      tool_calls:
        - {id: call_1, name: read_file, arguments: {path: notes.txt}}
        - {id: call_2, name: search_web, arguments: {q: x}}
  - response:
      tool_calls:
        - {id: call_1, name: read_file, arguments: {path: notes.txt}}
  - response: {content: done}
expect:
  final: "done"
  tool_calls: [read_file, read_files]
  errors: {call_9: validation, {turn: 7, call: 1}: failed, {turn: 1, call: 3}: failed}
  repairs: {call_2: [trailing_commas]}
  calls:
    only: [grep]
    list: [read_file]
  files:
    /etc/passwd: null
    ../../notes.txt: "hi\n"
`)
	checkLint(t, got, []string{
		`$FILE:5: setup.workspace.files: "../escape.txt" is outside the workspace (paths are relative to it and may not leave it)`,
		`$FILE:9: setup.loop.retry.backoff: "100" is not a Go duration: write it with a unit, such as 100ms or 2s`,
		`$FILE:15: tape: calls tool "search_web", which setup.tools does not set up (it sets up read_file); expect.errors: {{turn: 1, call: 2}: not_found} if that is the point`,
		`$FILE:18: warning: tape: call id "call_1" is used again (first on line 14); name these calls by position in expectations, as {turn: 2, call: 1}`,
		`$FILE:21: expect.final: want a mapping {equals|contains|matches: TEXT}, got a string; write final: {contains: "done"}`,
		`$FILE:22: expect.tool_calls: no tool "read_files" in setup.tools or the tape (it sets up read_file)`,
		`$FILE:23: expect.errors: names call "call_9", which the tape does not make (its call ids: call_1, call_2)`,
		`$FILE:23: expect.errors: names {turn: 7, call: 1}, but the tape has 3 model turns`,
		`$FILE:23: expect.errors: names {turn: 1, call: 3}, but turn 1 makes 2 calls`,
		`$FILE:24: expect.repairs: no repair fix is named "trailing_commas" (the fixes: trim, strip_bom, comments, strip_prose, escape_control_chars, escape_backslashes, trailing_comma, missing_comma, missing_colon, curly_quotes, single_quotes, unquoted_keys, unquoted_strings, inner_quotes, python_literals, js_literals, numbers, concatenation, function_call, ellipsis, multiple_values, missing_value, close_literal, close_string, close_brackets, missing_braces)`,
		`$FILE:26: expect.calls.only: no tool "grep" in setup.tools or the tape (it sets up read_file)`,
		`$FILE:29: expect.files: "/etc/passwd" is outside the workspace (paths are relative to it and may not leave it)`,
		`$FILE:30: expect.files: "../../notes.txt" is outside the workspace (paths are relative to it and may not leave it)`,
	})
}

func TestLintTabs(t *testing.T) {
	got := lintText(t, "format: tapeloop/v1\ninput:\n\t- {role: user, content: hi}\ntape:\n\t- response: {content: hi}\n")
	checkLint(t, got, []string{
		"$FILE:3: a tab in indentation: YAML indents with spaces only",
		"$FILE:5: a tab in indentation: YAML indents with spaces only",
	})
}

// TestLintTabInBlockScalar: a tab inside a block scalar's content is text,
// not indentation.
func TestLintTabInBlockScalar(t *testing.T) {
	got := lintText(t, "format: tapeloop/v1\nsetup:\n  workspace:\n    files:\n      main.go: |\n        func f() {\n        \treturn\n        }\ninput: []\ntape: []\n")
	checkLint(t, got, nil)
}

func TestLintOtherErrorsAndValidate(t *testing.T) {
	// A problem only Load finds is still reported, with its line.
	got := lintText(t, "format: tapeloop/v1\ninput: []\ntape: []\nexpect: {iterations: many}\n")
	checkLint(t, got, []string{`$FILE:4: expect.iterations: want an integer, got a string ("many")`})
	// A fixture configuration only Validate finds.
	got = lintText(t, "format: tapeloop/v1\nsetup:\n  tools:\n    - {name: w, fixture: slow, with: {delay: 5, result: x}}\ninput: []\ntape: []\n")
	checkLint(t, got, []string{
		`$FILE:4: setup.tools[w].with.delay: "5" is not a Go duration: write it with a unit, such as 100ms or 2s`,
	})
	// A clean file has no problems; an unknown tool expected on purpose is
	// not one.
	got = lintText(t, "format: tapeloop/v1\ninput: []\ntape:\n  - response: {tool_calls: [{id: c1, name: nope}]}\n  - response: {content: ok}\nexpect:\n  errors: {c1: not_found}\n  tool_calls: [nope]\n")
	checkLint(t, got, nil)
}

// TestLintEveryExpectKeyShape: every expect key of the wrong shape or value
// is reported, not only the first.
func TestLintEveryExpectKeyShape(t *testing.T) {
	got := lintText(t, `format: tapeloop/v1
input: [{role: user, content: go}]
tape:
  - response: {content: done}
expect:
  errors: [call_1]
  iterations: 1
  repairs: [call_2]
  termination: finished
`)
	checkLint(t, got, []string{
		`$FILE:6: expect.errors: want a mapping, got a sequence`,
		`$FILE:8: expect.repairs: want a mapping, got a sequence`,
		`$FILE:9: expect.termination: unknown value "finished" (want final_text | loop_breaking | all_terminate | max_iterations | model_error | cancelled | hook_error | structured_answer | agent_error)`,
	})
}

// TestLintDurationTooLarge: a duration written right that overflows is
// called too large, not malformed.
func TestLintDurationTooLarge(t *testing.T) {
	got := lintText(t, "format: tapeloop/v1\nsetup:\n  loop:\n    retry: {attempts: 3, backoff: 9999999h}\ninput: []\ntape: []\n")
	checkLint(t, got, []string{
		`$FILE:4: setup.loop.retry.backoff: "9999999h" is too large: a duration is at most 2562047h47m16.854775807s`,
	})
}

// TestLintQuotedPosition: a position quoted by mistake is reported as a
// string rather than as an unknown call id, next to the other mistakes on
// its line.
func TestLintQuotedPosition(t *testing.T) {
	got := lintText(t, `format: tapeloop/v1
setup: {tools: [read_file]}
input: [{role: user, content: go}]
tape:
  - response:
      tool_calls:
        - {id: call_1, name: read_file, arguments: {path: notes.txt}}
  - response: {content: done}
expect:
  errors: {call_9: failed, "{turn: 1, call: 1}": validation}
  repairs:
    '{turn:1}': []
`)
	checkLint(t, got, []string{
		`$FILE:10: expect.errors: names call "call_9", which the tape does not make (its call ids: call_1)`,
		`$FILE:10: expect.errors: the key "{turn: 1, call: 1}" is a string, not a {turn, call} mapping; write the position without quotes, as {turn: 1, call: 1}`,
		`$FILE:12: expect.repairs: the key "{turn:1}" is a string, not a {turn, call} mapping; write the position without quotes, as {turn: N, call: M}`,
	})
}

// TestLintEmptyMatcher: a contains or matches of "" in expect.said or
// expect.final holds for any text, so it checks nothing: a warning. An
// equals of "" is a real expectation (an empty text) and is not one.
func TestLintEmptyMatcher(t *testing.T) {
	const warning = `"" matches every text, so this checks nothing; give the text to look for`
	for _, tc := range []struct {
		expect string
		want   string // the key warned about; "" for none
	}{
		{`said: [{contains: ""}]`, "expect.said[0].contains"},
		{`said: [{contains: hi}, {matches: ''}]`, "expect.said[1].matches"},
		{`said: [{contains: "", ignore_case: true}]`, "expect.said[0].contains"},
		{`said: [{contains: }]`, "expect.said[0].contains"},
		{`final: {contains: ""}`, "expect.final.contains"},
		{`final: {matches: ""}`, "expect.final.matches"},
		{`said: [{equals: ""}]`, ""},
		{`final: {equals: ""}`, ""},
		{`said: [{contains: " "}, {matches: "^$"}]`, ""},
		{`final: {contains: done}`, ""},
	} {
		got := lintText(t, "format: tapeloop/v1\ninput: [{role: user, content: go}]\ntape:\n  - response: {content: done}\nexpect:\n  "+tc.expect+"\n")
		var want []string
		if tc.want != "" {
			want = []string{"$FILE:6: warning: " + tc.want + ": " + warning}
		}
		t.Run(tc.expect, func(t *testing.T) { checkLint(t, got, want) })
	}
}

// TestLintCallIDWithoutCalls: an expectation naming a call of a tape that
// makes none says so, rather than listing "(its call ids: )".
func TestLintCallIDWithoutCalls(t *testing.T) {
	got := lintText(t, "format: tapeloop/v1\ninput: [{role: user, content: go}]\ntape:\n  - response: {content: done}\nexpect:\n  errors: {call_1: failed}\n")
	checkLint(t, got, []string{
		`$FILE:6: expect.errors: names call "call_1", but the tape makes no call`,
	})
}

// TestLintDurationTooLargeWhenTheFileDoesNotLoad: a duration too large is
// reported even when an earlier mistake stops the file from loading.
func TestLintDurationTooLargeWhenTheFileDoesNotLoad(t *testing.T) {
	got := lintText(t, "format: tapeloop/v1\nsetup:\n  loop:\n    max_iterations: 0\n    retry: {attempts: 3, backoff: 9999999h}\ninput: []\ntape: []\n")
	checkLint(t, got, []string{
		`$FILE:4: setup.loop.max_iterations: want an integer from 1 to 10000, got 0`,
		`$FILE:5: setup.loop.retry.backoff: "9999999h" is too large: a duration is at most 2562047h47m16.854775807s`,
	})
}

// TestLintCallsWithoutIDs: calls the tape gives no id (the loop generates
// them) are not one id used twice.
func TestLintCallsWithoutIDs(t *testing.T) {
	got := lintText(t, "format: tapeloop/v1\nsetup: {tools: [echo]}\ninput: [{role: user, content: hi}]\ntape:\n  - response: {tool_calls: [{name: echo, arguments: {}}, {name: echo, arguments: {}}]}\n  - response: {content: done}\n")
	checkLint(t, got, nil)
}

// TestLintReportsValidateErrors: what only the caller's Validate finds is
// a problem of the file, with the line it names.
func TestLintReportsValidateErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte("format: tapeloop/v1\n"+minimal), 0o644); err != nil {
		t.Fatal(err)
	}
	_, problems := scenario.Lint(path, &scenario.LintOptions{Validate: func(s *scenario.Scenario) error {
		return s.ErrorAt(2, "input", nil, "no user model for this turn")
	}})
	var got []string
	for _, p := range problems {
		got = append(got, strings.ReplaceAll(scenario.LintText(p), path, "$FILE"))
	}
	checkLint(t, got, []string{"$FILE:2: input: no user model for this turn"})
}

// TestLintTapeWithUserTurns: a tape holding user turns (no model answer)
// lints clean when text calls are read with a chosen set of formats.
func TestLintTapeWithUserTurns(t *testing.T) {
	got := lintText(t, "format: tapeloop/v1\nsetup:\n  loop: {text_calls: {formats: [hermes]}}\ninput: [{role: user, content: hi}]\ntape:\n  - response: {content: hello}\n  - user: {content: more}\n  - response: {content: done}\n")
	checkLint(t, got, nil)
}

// TestLintText: a problem about the whole file (line 0) names the file
// alone, with no ":0"; a warning says so before its key, or before its
// problem when it has no key.
func TestLintText(t *testing.T) {
	for _, c := range []struct {
		p    fileerr.Error
		want string
	}{
		{fileerr.Error{File: "s.yaml", Problem: "cannot read it", Kind: scenario.ErrScenario}, "s.yaml: cannot read it"},
		{fileerr.Error{File: "s.yaml", Line: 3, Key: "tape", Problem: "m", Kind: scenario.ErrWarning}, "s.yaml:3: warning: tape: m"},
		{fileerr.Error{File: "s.yaml", Line: 3, Problem: "m", Kind: scenario.ErrWarning}, "s.yaml:3: warning: m"},
		{fileerr.Error{File: "s.yaml", Line: 3, Key: "tape", Problem: "m", Kind: scenario.ErrScenario}, "s.yaml:3: tape: m"},
	} {
		if got := scenario.LintText(&c.p); got != c.want {
			t.Errorf("LintText(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
}

// TestLintProblemsAreFileErrors: what Lint finds is reached with
// errors.As, an error matching ErrScenario and a warning ErrWarning.
func TestLintProblemsAreFileErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	src := "format: tapeloop/v1\ninput: [{role: user, content: hi}]\nexpect:\n  final: {contains: \"\"}\n  iterations: two\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, problems := scenario.Lint(path, nil)
	var warned, failed bool
	for _, p := range problems {
		var fe *fileerr.Error
		if !errors.As(error(p), &fe) || fe.File != path || fe.Line == 0 {
			t.Errorf("%v: not located (%+v)", p, fe)
		}
		warned = warned || errors.Is(p, scenario.ErrWarning)
		failed = failed || errors.Is(p, scenario.ErrScenario)
		if errors.Is(p, scenario.ErrWarning) == errors.Is(p, scenario.ErrScenario) {
			t.Errorf("%v: both or neither a warning and an error", p)
		}
	}
	if !warned || !failed {
		t.Errorf("want a warning and an error, got %q", problems)
	}
}

// TestLintNotAScenario: a YAML file without a format line is one problem
// for the whole file that says what it is.
func TestLintNotAScenario(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte("retries: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, problems := scenario.Lint(path, nil)
	if want := path + ": not a tapeloop scenario: it has no `format: tapeloop/v1` line"; len(problems) != 1 || scenario.LintText(problems[0]) != want {
		t.Errorf("Lint = %v, want %s", problems, want)
	}
}

// TestLintToolsAndGeneratedIDs: a tape calling a tool when setup.tools
// sets up none says so; a generated call ID (call_gen_N) in an expectation
// is accepted only when the loop may generate one: a call without an id,
// or a text turn while text calls are extracted.
func TestLintToolsAndGeneratedIDs(t *testing.T) {
	got := lintText(t, "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape:\n  - response: {tool_calls: [{id: c1, name: search, arguments: {}}]}\n  - response: {content: done}\n")
	checkLint(t, got, []string{`$FILE:4: tape: calls tool "search", which setup.tools does not set up (it sets up none); expect.errors: {{turn: 1, call: 1}: not_found} if that is the point`})
	const text = "format: tapeloop/v1\nsetup:\n  loop: {text_calls: TC}\ninput: [{role: user, content: hi}]\ntape:\n  - response: {content: done}\nexpect:\n  errors: {call_gen_1: failed}\n"
	checkLint(t, lintText(t, strings.Replace(text, "TC", "true", 1)), nil)
	checkLint(t, lintText(t, strings.Replace(text, "TC", "false", 1)), []string{`$FILE:8: expect.errors: names call "call_gen_1", but the tape makes no call`})
	const calls = "format: tapeloop/v1\nsetup:\n  tools: [echo]\n  loop: {text_calls: false}\ninput: [{role: user, content: hi}]\ntape:\n  - response: {tool_calls: [CALL]}\n  - response: {content: done}\nexpect:\n  errors: {call_gen_1: failed}\n"
	checkLint(t, lintText(t, strings.Replace(calls, "CALL", "{name: echo, arguments: {}}", 1)), nil)
	checkLint(t, lintText(t, strings.Replace(calls, "CALL", "{id: c1, name: echo, arguments: {}}", 1)), []string{`$FILE:10: expect.errors: names call "call_gen_1", which the tape does not make (its call ids: c1)`})
}

// TestLintUnknownToolsInExpectations: expect.retries and both forms of an
// expect.calls list item are checked against the tools set up or called.
func TestLintUnknownToolsInExpectations(t *testing.T) {
	got := lintText(t, "format: tapeloop/v1\nsetup:\n  tools: [echo]\ninput: [{role: user, content: hi}]\ntape: [{response: {content: done}}]\nexpect:\n  retries: {nope: 1}\n  calls:\n    list:\n      - nope2\n      - {name: nope3}\n")
	checkLint(t, got, []string{
		`$FILE:7: expect.retries: no tool "nope" in setup.tools or the tape (it sets up echo)`,
		`$FILE:10: expect.calls.list: no tool "nope2" in setup.tools or the tape (it sets up echo)`,
		`$FILE:11: expect.calls.list: no tool "nope3" in setup.tools or the tape (it sets up echo)`,
	})
}
