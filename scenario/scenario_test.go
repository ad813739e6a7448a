package scenario_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/fixtures"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// minimal is the smallest valid scenario body after the format line.
const minimal = "input: [{role: user, content: hi}]\ntape: [{response: {content: hello}}]\n"

func reasonAlternatives() string {
	names := make([]string, len(agent.Reasons))
	for i, r := range agent.Reasons {
		names[i] = string(r)
	}
	return strings.Join(names, " | ")
}

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name, text string
		// validate also builds the workspace and tools (fixture errors).
		validate bool
		want     string
	}{
		{name: "unknown top-level key",
			text: "format: tapeloop/v1\n" + minimal + "expcet: {iterations: 1}\n",
			want: `$FILE:4: unknown key "expcet" (want format, name, description, tags, setup, input, offered, tape, expect, faults, judge)`},
		{name: "unknown nested key",
			text: "format: tapeloop/v1\nsetup:\n  loop:\n    retyr: {attempts: 2}\n" + minimal,
			want: `$FILE:4: setup.loop: unknown key "retyr" (want max_iterations, execution, retry, tool_timeout, memoize, text_calls, repair, model_retry, model_timeout, request)`},
		{name: "wrong type",
			text: "format: tapeloop/v1\nsetup:\n  loop:\n    max_iterations: \"ten\"\n" + minimal,
			want: `$FILE:4: setup.loop.max_iterations: want an integer, got a string ("ten")`},
		{name: "zero iterations",
			text: "format: tapeloop/v1\nsetup:\n  loop:\n    max_iterations: 0\n" + minimal,
			want: `$FILE:4: setup.loop.max_iterations: want an integer from 1 to 10000, got 0`},
		{name: "bad format version",
			text: "format: tapeloop/v2\n" + minimal,
			want: `$FILE:1: format: unknown format "tapeloop/v2": this version of tapeloop reads tapeloop/v1`},
		{name: "no format",
			text: minimal,
			want: "$FILE: not a tapeloop scenario: it has no `format: tapeloop/v1` line"},
		{name: "missing input",
			text: "format: tapeloop/v1\ntape: [{response: {content: hello}}]\n",
			want: `$FILE:1: input: missing (a scenario needs input; a tape, unless it only runs live)`},
		{name: "bad termination",
			text: "format: tapeloop/v1\n" + minimal + "expect:\n  termination: finished\n",
			want: `$FILE:5: expect.termination: unknown value "finished" (want ` + reasonAlternatives() + `)`},
		{name: "bad regexp",
			text: "format: tapeloop/v1\n" + minimal + "expect:\n  final: {matches: \"hel(lo\"}\n",
			want: "$FILE:5: expect.final.matches: invalid regular expression: error parsing regexp: missing closing ): `hel(lo`"},
		{name: "duplicate tool name",
			text: "format: tapeloop/v1\nsetup:\n  tools:\n    - read_file\n    - name: read_file\n      fixture: echo\n" + minimal,
			want: `$FILE:5: setup.tools[1]: tool "read_file" is already set up on line 4`},
		{name: "bad with value", validate: true,
			text: "format: tapeloop/v1\nsetup:\n  tools:\n    - name: weather\n      fixture: flaky\n      with: {failures: two, kind: transient, result: sunny}\n" + minimal,
			want: `$FILE:6: setup.tools[weather].with.failures: want an integer, got "two"`},
		{name: "unknown with key", validate: true,
			text: "format: tapeloop/v1\nsetup:\n  tools:\n    - name: weather\n      fixture: flaky\n      with:\n        failures: 2\n        kind: transient\n        reslt: sunny\n" + minimal,
			want: `$FILE:9: setup.tools[weather].with.reslt: unknown key (valid keys: description, failures, kind, result, idempotent)`},
		{name: "unknown fixture", validate: true,
			text: "format: tapeloop/v1\nsetup:\n  tools:\n    - read_file\n    - name: weather\n      fixture: weather_api\n" + minimal,
			want: `$FILE:5: setup.tools[weather].fixture: unknown tool "weather_api" (known: fixtures ` + strings.Join(fixtures.Names(), ", ") + `)`},
		{name: "tape error",
			text: "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape:\n  - response:\n      content: hello\n      finsh_reason: stop\n",
			want: `$FILE:6: tape[0].response: unknown key "finsh_reason" (want reasoning, content, tool_calls, finish_reason, usage)`},
		{name: "bad workspace from",
			text: "format: tapeloop/v1\nsetup:\n  workspace: {from: nowhere}\n" + minimal,
			want: `$FILE:3: setup.workspace.from: "nowhere" does not exist (it is resolved against the scenario's folder)`},
		{name: "empty file",
			text: "",
			want: `$FILE: the file is empty (want format: tapeloop/v1, input and tape)`},
		{name: "only a comment",
			text: "# nothing yet\n",
			want: `$FILE: the file is empty (want format: tapeloop/v1, input and tape)`},
		{name: "invalid YAML syntax",
			text: "format: tapeloop/v1\ninput:\n\t- {role: user, content: hi}\n",
			want: `$FILE:3: invalid YAML: found character that cannot start any token`},
		{name: "not a mapping",
			text: "- format: tapeloop/v1\n",
			want: `$FILE:1: want a mapping, got a sequence`},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".yaml")
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := scenario.Load(path)
			if err == nil && c.validate {
				err = harness.Validate(s, nil)
			} else if c.validate {
				t.Fatalf("Load: %v (want the error from Validate)", err)
			}
			if err == nil {
				t.Fatalf("no error, want %s", c.want)
			}
			if !errors.Is(err, scenario.ErrScenario) {
				t.Errorf("%v does not wrap ErrScenario", err)
			}
			want := strings.ReplaceAll(c.want, "$FILE", path)
			if err.Error() != want {
				t.Errorf("error:\n%s\nwant:\n%s", err, want)
			}
		})
	}
}

func TestLoadWrapsFixtureSentinels(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\nsetup:\n  tools:\n    - name: w\n      fixture: flaky\n      with: {failures: 1, kind: transient, result: x, colour: red}\n"+minimal), "s.yaml", "s")
	if err != nil {
		t.Fatal(err)
	}
	if err := harness.Validate(s, nil); !errors.Is(err, toolkit.ErrUnknownKey) || !errors.Is(err, scenario.ErrScenario) {
		t.Errorf("Validate = %v, want it to wrap toolkit.ErrUnknownKey and ErrScenario", err)
	}
}

func TestLoadTapeErrorWrapsReplayFormat(t *testing.T) {
	_, err := scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: [{respons: {}}]\n"), "s.yaml", "s")
	if !errors.Is(err, scenario.ErrScenario) || !errors.Is(err, tape.ErrFormat) {
		t.Errorf("Parse = %v, want it to wrap ErrScenario and tape.ErrFormat", err)
	}
}

func TestLoadRefusesHugeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.yaml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse file: no disk blocks are written.
	if err := f.Truncate(scenario.MaxScenarioSize + 1); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = scenario.Load(path)
	want := "loading scenario: reading " + path + ": file too large: more than the limit of 16777216 bytes"
	if err == nil || err.Error() != want || !errors.Is(err, scenario.ErrScenario) {
		t.Errorf("Load = %v, want %s", err, want)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := scenario.Load(filepath.Join(t.TempDir(), "nope.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load = %v, want it to wrap fs.ErrNotExist", err)
	}
}

func TestLoadNamesAndDefaults(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "group")
	if err := os.MkdirAll(filepath.Join(dir, "seed"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := write("group/plain.yaml", "format: tapeloop/v1\n"+minimal)
	named := write("group/named.yaml", "format: tapeloop/v1\nname: custom/name\ntags: [a, b]\nsetup:\n  workspace: {from: seed}\n"+minimal)
	// Under a folder named scenarios: relative to it, even inside a module.
	write("mod/go.mod", "module example.com/m\n")
	inScenarios := write("mod/scenarios/files/edit.yml", "format: tapeloop/v1\n"+minimal)
	// Under a module without a scenarios folder: relative to the module root.
	inModule := write("mod/testdata/evals/weather/retry.yaml", "format: tapeloop/v1\n"+minimal)

	cases := []struct {
		path, root, name string
	}{
		{plain, "", "plain"},
		{plain, root, "plain"}, // root is not used
		{named, "", "custom/name"},
		{inScenarios, "", "files/edit"},
		{inModule, "", "testdata/evals/weather/retry"},
		{inModule, filepath.Join(root, "mod", "testdata"), "testdata/evals/weather/retry"},
	}
	for _, c := range cases {
		s, err := scenario.Load(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if s.Name != c.name {
			t.Errorf("Load(%s, %q).Name = %q, want %q", c.path, c.root, s.Name, c.name)
		}
	}
	if s, err := scenario.Load(inScenarios); err != nil || s.RelPath != "files/edit.yml" {
		t.Errorf("RelPath of a .yml scenario: %v, %v", s, err)
	}
	s, err := scenario.Load(plain)
	if err != nil {
		t.Fatal(err)
	}
	if s.Setup.Seed != 1 || s.Setup.Loop.MaxIterations != agent.DefaultMaxIterations || !s.Setup.Loop.TextCalls || !s.Setup.Loop.Repair || s.Expect != nil {
		t.Errorf("defaults: %+v, expect %v", s.Setup, s.Expect)
	}
	s, err = scenario.Load(named)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "seed"); s.Setup.Workspace.From != want {
		t.Errorf("from = %q, want %q (resolved against the scenario's folder)", s.Setup.Workspace.From, want)
	}
	if strings.Join(s.Tags, ",") != "a,b" {
		t.Errorf("tags = %v", s.Tags)
	}
}

// TestParseWithoutTape: a scenario for live runs needs no tape: key; it
// parses with NoTape set, and an empty tape is still a tape.
func TestParseWithoutTape(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\nexpect: {termination: final_text}\n"), "live.yaml", "live")
	if err != nil || !s.NoTape || s.Tape != nil {
		t.Fatalf("without tape: %+v, %v; want NoTape", s, err)
	}
	s, err = scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\n"), "empty.yaml", "empty")
	if err != nil || s.NoTape {
		t.Fatalf("tape: []: %+v, %v; want a tape", s, err)
	}
}

// TestSetupLoopDecoded: every key of setup.loop reaches the LoopSetup the
// harness runs with; a retry count outside 1..100 names its key and range.
func TestSetupLoopDecoded(t *testing.T) {
	s, err := scenario.Parse([]byte(`format: tapeloop/v1
setup:
  loop:
    max_iterations: 7
    execution: sequential
    retry: {attempts: 3, backoff: 250ms}
    tool_timeout: 2s
    memoize: true
    repair: false
    model_timeout: 9s
    model_retry: {attempts: 4, backoff: 1s, max_backoff: 8s}
`+minimal), "s.yaml", "s")
	if err != nil {
		t.Fatal(err)
	}
	l := s.Setup.Loop
	got := []any{l.MaxIterations, l.Execution, l.RetryAttempts, l.RetryBackoff, l.ToolTimeout, l.Memoize, l.Repair, l.ModelTimeout, l.ModelRetryAttempts, l.ModelRetryBackoff, l.ModelRetryMaxBackoff}
	want := []any{7, tools.ExecutionSequential, 3, 250 * time.Millisecond, 2 * time.Second, true, false, 9 * time.Second, 4, time.Second, 8 * time.Second}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("setup.loop = %v\nwant        %v", got, want)
	}
	for attempts, want := range map[string]string{
		"1":   "",
		"100": "",
		"0":   "s.yaml:4: setup.loop.retry.attempts: want an integer from 1 to 100, got 0",
		"101": "s.yaml:4: setup.loop.retry.attempts: want an integer from 1 to 100, got 101",
	} {
		_, err := scenario.Parse([]byte("format: tapeloop/v1\nsetup:\n  loop:\n    retry: {attempts: "+attempts+"}\n"+minimal), "s.yaml", "s")
		if got := fmt.Sprint(err); want == "" && err != nil || want != "" && !strings.HasPrefix(got, want) {
			t.Errorf("retry.attempts %s: %v, want %q", attempts, err, want)
		}
	}
}

// checkParseErrors parses a minimal scenario followed by each body and
// checks that the error starts with the text given for it.
func checkParseErrors(t *testing.T, cases map[string]string) {
	t.Helper()
	for body, want := range cases {
		if got := parseError(t, body); !strings.HasPrefix(got, want) {
			t.Errorf("%q: error %s\nwant %s...", body, got, want)
		}
	}
}

// parseBody parses a minimal scenario followed by body (top-level keys).
func parseBody(t *testing.T, body string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Parse([]byte("format: tapeloop/v1\n"+minimal+body), "s.yaml", "s")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

// parseError parses a minimal scenario followed by body and returns the
// error's text, file name "s.yaml".
func parseError(t *testing.T, body string) string {
	t.Helper()
	_, err := scenario.Parse([]byte("format: tapeloop/v1\n"+minimal+body), "s.yaml", "s")
	if err == nil {
		t.Fatalf("Parse of %q: no error", body)
	}
	return err.Error()
}

// TestWorkspaceFilesErrors: each name of setup.workspace.files must be a
// file inside the workspace, and no two may name the same file.
func TestWorkspaceFilesErrors(t *testing.T) {
	s := parseBody(t, "setup:\n  workspace:\n    files:\n      a.txt: one\n      dir/b.txt: two\n")
	if f := s.Setup.Workspace.Files; len(f) != 2 || f[1].Path != "dir/b.txt" || f[1].Content != "two" || f[1].Line != 8 {
		t.Errorf("files = %+v", f)
	}
	checkParseErrors(t, map[string]string{
		"setup:\n  workspace:\n    files: {'': x}\n":                   "s.yaml:6: setup.workspace.files: empty file name",
		"setup:\n  workspace:\n    files: {../x: x}\n":                 `s.yaml:6: setup.workspace.files: "../x" leads outside the workspace`,
		"setup:\n  workspace:\n    files: {.: x}\n":                    `s.yaml:6: setup.workspace.files: "." names the workspace folder, not a file`,
		"setup:\n  workspace:\n    files:\n      a: x\n      ./a: y\n": `s.yaml:8: setup.workspace.files: "./a" names the same file as "a" on line 7`,
		"setup:\n  workspace:\n    files: {a: [x]}\n":                  "s.yaml:6: setup.workspace.files.a: want a string",
	})
}

// TestExpectDecoded: the scalar and mapping keys of expect keep their
// values, and Line gives each key's line (0 for a key not there, or no
// expect block at all).
func TestExpectDecoded(t *testing.T) {
	s := parseBody(t, `expect:
  termination: final_text
  model_retries: 2
  iterations: 3
  tool_calls: [read_file]
  retries: {read_file: 1}
  errors: {call_1: validation}
  final: {equals: done, contains: do, matches: '^d'}
  files:
    gone.txt: null
    notes.txt: hello
`)
	e := s.Expect
	if *e.Termination != agent.ReasonFinalText || *e.ModelRetries != 2 || *e.Iterations != 3 || strings.Join(*e.ToolCalls, ",") != "read_file" || e.Retries["read_file"] != 1 || e.Errors["call_1"] != tools.KindValidation {
		t.Errorf("expect = %+v", e)
	}
	if *e.Final.Equals != "done" || *e.Final.Contains != "do" || e.Final.Matches.String() != "^d" {
		t.Errorf("expect.final = %+v", e.Final)
	}
	if len(e.Files) != 2 || e.Files[0].Path != "gone.txt" || e.Files[0].Content != nil || e.Files[1].Content == nil || *e.Files[1].Content != "hello" {
		t.Errorf("expect.files = %+v; want gone.txt absent and notes.txt holding hello", e.Files)
	}
	if e.Line("termination") != 5 || e.Line("files") != 13 || e.Line("state") != 0 {
		t.Errorf("Line(termination, files, state) = %d, %d, %d; want 5, 13, 0", e.Line("termination"), e.Line("files"), e.Line("state"))
	}
	var none *scenario.Expect
	if none.Line("final") != 0 {
		t.Errorf("a nil Expect's Line = %d, want 0", none.Line("final"))
	}
	checkParseErrors(t, map[string]string{
		"expect:\n  errors: {call_1: broken}\n":   "s.yaml:5: expect.errors.call_1:",
		"expect:\n  errors: {call_1: [failed]}\n": "s.yaml:5: expect.errors.call_1: want a string",
		"expect:\n  final: {}\n":                  "s.yaml:5: expect.final: empty (want equals, contains or matches)",
		"expect:\n  final: {equals: [a]}\n":       "s.yaml:5: expect.final.equals: want a string",
		"expect:\n  files: {a.txt: [x]}\n":        "s.yaml:5: expect.files.a.txt: want a string",
		"expect:\n  retries: {read_file: -1}\n":   "s.yaml:5: expect.retries.read_file: want an integer from 0 to 1000",
	})
}

// TestSetupToolsDecoded: setup.tools takes a name (the fixture of that
// name) or {name, fixture, with}; fixture defaults to the name.
func TestSetupToolsDecoded(t *testing.T) {
	s := parseBody(t, "setup:\n  seed: -7\n  tools:\n    - read_file\n    - {name: notes, fixture: echo, with: {x: 1}}\n    - {name: search}\n")
	ts := s.Setup.Tools
	if s.Setup.Seed != -7 || len(ts) != 3 {
		t.Fatalf("setup = %+v", s.Setup)
	}
	if ts[0].Name != "read_file" || ts[0].Fixture != "read_file" || ts[1].Fixture != "echo" || ts[1].With == nil || ts[2].Fixture != "search" || ts[2].Line != 9 {
		t.Errorf("tools = %+v", ts)
	}
	if s := parseBody(t, "setup: {seed: 4611686018427387904}\n"); s.Setup.Seed != 1<<62 {
		t.Errorf("seed: 2^62 = %d", s.Setup.Seed)
	}
	checkParseErrors(t, map[string]string{
		"setup:\n  tools: read_file\n":           "s.yaml:5: setup.tools: want a sequence",
		"setup:\n  tools: [[read_file]]\n":       "s.yaml:5: setup.tools[0]: want a mapping",
		"setup:\n  tools: [{fixture: echo}]\n":   `s.yaml:5: setup.tools[0]: missing key "name"`,
		"setup:\n  tools: [{name: [a]}]\n":       "s.yaml:5: setup.tools[0].name: want a string",
		"setup:\n  tools: ['bad name']\n":        "s.yaml:5: setup.tools[0]:",
		"setup:\n  seed: 4611686018427387905\n":  "s.yaml:5: setup.seed: want an integer from -4611686018427387904 to 4611686018427387904",
		"setup:\n  seed: -4611686018427387905\n": "s.yaml:5: setup.seed: want an integer from -4611686018427387904 to 4611686018427387904",
	})
	if _, err := scenario.Parse([]byte("format: tapeloop/v1\nsetup:\n  tools: ['bad name']\n"+minimal), "s.yaml", "s"); err == nil || !strings.Contains(err.Error(), "bad name") {
		t.Errorf("a tool name with a space: %v", err)
	}
}

// TestLoopRequest: setup.loop.request decodes into the loop's request
// options; a value out of range is an error naming its file, line and key.
func TestLoopRequest(t *testing.T) {
	const base = "format: tapeloop/v1\nsetup:\n  loop:\n    request: REQ\ninput:\n  - {role: user, content: hi}\ntape:\n  - response: {content: hello}\n"
	dir := t.TempDir()
	write := func(req string) string {
		p := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(p, []byte(strings.Replace(base, "REQ", req, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	s, err := scenario.Load(write("{temperature: 0.2, top_p: 1, max_tokens: 64, seed: -1, stop: [END], tool_choice: none, parallel_tool_calls: false}"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for k, v := range s.Setup.Loop.Request.Params() {
		got[k] = string(v)
	}
	want := map[string]string{"temperature": "0.2", "top_p": "1", "max_tokens": "64", "seed": "-1", "stop": `["END"]`, "tool_choice": `"none"`, "parallel_tool_calls": "false"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("params %v, want %v", got, want)
	}
	// false above is also the zero value: true must reach the request too.
	if s, err = scenario.Load(write("{parallel_tool_calls: true}")); err != nil {
		t.Fatal(err)
	}
	if got := string(s.Setup.Loop.Request.Params()["parallel_tool_calls"]); got != "true" {
		t.Errorf("parallel_tool_calls: true sends %q, want true", got)
	}
	for req, msg := range map[string]string{
		"{parallel_tool_calls: sometimes}": `s.yaml:4: setup.loop.request.parallel_tool_calls: want true or false, got a string ("sometimes")`,
		"{temperature: 3}":                 `s.yaml:4: setup.loop.request.temperature: want a number from 0 to 2, got an integer (3)`,
		"{top_p: -0.1}":                    `s.yaml:4: setup.loop.request.top_p: want a number from 0 to 1`,
		"{max_tokens: 0}":                  `s.yaml:4: setup.loop.request.max_tokens: want an integer from 1`,
		`{tool_choice: ""}`:                `s.yaml:4: setup.loop.request.tool_choice: want "auto", "none", "required" or a tool's name`,
		"{temprature: 0.2}":                `s.yaml:4: setup.loop.request: unknown key "temprature"`,
		"{stop: END}":                      `s.yaml:4: setup.loop.request.stop:`,
		"{temperature: warm}":              `s.yaml:4: setup.loop.request.temperature: want a number from 0 to 2, got`,
	} {
		if _, err := scenario.Load(write(req)); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: err = %v, want %q", req, err, msg)
		}
	}
}
