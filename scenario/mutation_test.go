package scenario_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
)

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

// TestParseCallAtReadsWhatCallAtWrites: a position written by CallAt reads
// back as the same turn and call; a call ID, and a position whose number does
// not fit an int, is not a position.
func TestParseCallAtReadsWhatCallAtWrites(t *testing.T) {
	if turn, call, ok := scenario.ParseCallAt(scenario.CallAt(3, 12)); !ok || turn != 3 || call != 12 {
		t.Errorf("ParseCallAt(CallAt(3, 12)) = %d, %d, %v; want 3, 12, true", turn, call, ok)
	}
	if turn, call, ok := scenario.ParseCallAt("{turn:7,call:1}"); !ok || turn != 7 || call != 1 {
		t.Errorf("ParseCallAt without spaces = %d, %d, %v; want 7, 1, true", turn, call, ok)
	}
	for _, ref := range []string{
		"call_1",
		"{turn: 99999999999999999999, call: 1}",
		"{turn: 1, call: 99999999999999999999}",
	} {
		if _, _, ok := scenario.ParseCallAt(ref); ok {
			t.Errorf("ParseCallAt(%q) is a position; want ok false", ref)
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

// TestExpectErrorsAndRepairsByPosition: expect.errors and expect.repairs name
// a call by ID or by position; both kinds of key are kept, under the ID and
// under CallAt's text.
func TestExpectErrorsAndRepairsByPosition(t *testing.T) {
	s := parseBody(t, "expect:\n  errors: {call_7: timeout, {turn: 2, call: 1}: failed}\n  repairs: {{turn: 3, call: 2}: [trailing_commas]}\n")
	if got := s.Expect.Errors; len(got) != 2 || got["call_7"] != tools.KindTimeout || got[scenario.CallAt(2, 1)] != tools.KindFailed {
		t.Errorf("expect.errors = %v; want call_7: timeout and {turn: 2, call: 1}: failed", got)
	}
	if got := s.Expect.Repairs[scenario.CallAt(3, 2)]; len(got) != 1 || got[0] != "trailing_commas" {
		t.Errorf("expect.repairs = %v; want {turn: 3, call: 2}: [trailing_commas]", s.Expect.Repairs)
	}
}

// TestGoldenPathOfEachExtension: a .yml scenario's golden is .golden.yml, and
// a file with neither extension gets .golden.yaml added.
func TestGoldenPathOfEachExtension(t *testing.T) {
	for in, want := range map[string]string{
		"files/edit.yml": "files/edit.golden.yml",
		"files/edit":     "files/edit.golden.yaml",
	} {
		if got := scenario.GoldenPath(in); got != want {
			t.Errorf("GoldenPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAppendTapeAtColumnZero: a tape whose items start at the key's column
// (no indentation) is appended to in place, at that column, keeping the old
// entries as written.
func TestAppendTapeAtColumnZero(t *testing.T) {
	src := "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape:\n- response: {content: old}  # kept\n"
	out, err := scenario.AppendTape([]byte(src), "s.yaml", []replay.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("new")}}})
	if err != nil {
		t.Fatal(err)
	}
	want := src + "- response:\n    content: new\n"
	if string(out) != want {
		t.Errorf("AppendTape wrote\n%s\nwant\n%s", out, want)
	}
}

// TestWriteTapeSizeLimit: a scenario file of exactly MaxScenarioSize bytes is
// read and edited (here it is not YAML, so the edit fails on its content);
// one byte more is refused for its size.
func TestWriteTapeSizeLimit(t *testing.T) {
	dir := t.TempDir()
	sized := func(name string, size int64) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		// A sparse file: no disk blocks are written.
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	err := scenario.WriteTape(sized("max.yaml", scenario.MaxScenarioSize), nil)
	if !errors.Is(err, scenario.ErrEdit) || strings.Contains(err.Error(), "more than") {
		t.Errorf("WriteTape of a file of MaxScenarioSize bytes = %v; want the edit's error about its content", err)
	}
	err = scenario.WriteTape(sized("over.yaml", scenario.MaxScenarioSize+1), nil)
	if want := "16777217 bytes is more than the 16777216 a scenario may have"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("WriteTape of a file of MaxScenarioSize+1 bytes = %v; want %q", err, want)
	}
}

// TestSetValueItemPastTheEnd: an index one past a sequence's last item, or
// below zero, names no item: an error, nothing written.
func TestSetValueItemPastTheEnd(t *testing.T) {
	src := "format: tapeloop/v1\ninput: []\ntape:\n  - response: {content: a}\n  - response: {content: b}\n"
	for _, path := range [][]string{{"tape", "2", "request"}, {"tape", "-1", "request"}} {
		out, err := scenario.SetValue([]byte(src), "s.yaml", path, yamlx.Map())
		if !errors.Is(err, scenario.ErrEdit) || !strings.Contains(err.Error(), "missing or not a mapping") {
			t.Errorf("SetValue(%v) = %q, %v; want an error wrapping ErrEdit", path, out, err)
		}
	}
}

// TestExpectCallsDecoded: expect.calls keeps match (exact when absent),
// only, failed: false and each list item: a bare name, or a name with
// arguments given as a mapping or as a JSON string, partial or whole.
func TestExpectCallsDecoded(t *testing.T) {
	s := parseBody(t, `expect:
  calls:
    only: [read_file, write_file, search]
    failed: false
    list:
      - read_file
      - {name: write_file, arguments: {path: a.txt}, partial: true}
      - {name: search, arguments: '{"q": "x"}'}
`)
	c := s.Expect.Calls
	if c == nil || c.Match != scenario.MatchExact || !c.SkipFailed || strings.Join(c.Only, ",") != "read_file,write_file,search" || len(c.List) != 3 {
		t.Fatalf("expect.calls = %+v; want match exact, failed: false, three tools in only and three items", c)
	}
	for i, want := range []string{"read_file (any arguments)", `write_file {"path":"a.txt",…}`, `search {"q":"x"}`} {
		if got := c.List[i].String(); got != want {
			t.Errorf("list[%d] = %s, want %s", i, got, want)
		}
	}
	if s := parseBody(t, "expect:\n  calls: {match: in_order, list: []}\n"); s.Expect.Calls.Match != scenario.MatchInOrder || s.Expect.Calls.SkipFailed || s.Expect.Calls.List == nil {
		t.Errorf("match: in_order, list: [] = %+v", s.Expect.Calls)
	}
}

// TestExpectCallsErrors: each malformed expect.calls names its line and key.
func TestExpectCallsErrors(t *testing.T) {
	checkParseErrors(t, map[string]string{
		"expect:\n  calls: {failed: true, list: []}\n":                             "s.yaml:5: expect.calls.failed: failed: true is the default",
		"expect:\n  calls: {list: read_file}\n":                                    "s.yaml:5: expect.calls.list: want a sequence",
		"expect:\n  calls: {list: [{arguments: {a: 1}}]}\n":                        `s.yaml:5: expect.calls.list[0]: missing key "name"`,
		"expect:\n  calls: {list: [{name: a, partial: true}]}\n":                   "s.yaml:5: expect.calls.list[0]: partial: true needs arguments",
		"expect:\n  calls: {list: [{name: a, arguments: 'not json'}]}\n":           "s.yaml:5: expect.calls.list[0].arguments: not a JSON value",
		"expect:\n  calls: {list: [{name: a, argumnets: {}}]}\n":                   `s.yaml:5: expect.calls.list[0]: unknown key "argumnets"`,
		"expect:\n  calls: {only: [a]}\n":                                          `s.yaml:5: expect.calls: missing key "list"`,
		"expect:\n  calls: {match: any, list: []}\n":                               `s.yaml:5: expect.calls.match: unknown value "any"`,
		"expect:\n  calls:\n    list:\n      - a\n      - {name: b, partial: 1}\n": "s.yaml:8: expect.calls.list[1].partial:",
	})
}

// TestExpectStateDecoded: expect.state is either the whole state (world
// names as keys; {} is an empty state) or values at JSON pointers, in file
// order; mixing the two is an error, whichever comes first.
func TestExpectStateDecoded(t *testing.T) {
	s := parseBody(t, "expect:\n  state:\n    /cart/items/0: apple\n    /cart/total: 3\n")
	st := s.Expect.State
	if st.Whole != nil || len(st.Pointers) != 2 || st.Pointers[0].Pointer != "/cart/items/0" || st.Pointers[0].Value != "apple" || st.Pointers[1].Value != 3.0 {
		t.Errorf("pointers: %+v; want /cart/items/0: apple, /cart/total: 3 and no whole state", st)
	}
	s = parseBody(t, "expect:\n  state:\n    cart: {total: 3, 1: one}\n")
	if got := s.Expect.State.Whole; len(got) != 1 || s.Expect.State.Pointers != nil {
		t.Errorf("whole state: %+v", s.Expect.State)
	} else if cart, _ := got["cart"].(map[string]any); cart["total"] != 3.0 || cart["1"] != "one" {
		t.Errorf("whole state: cart = %v; want total 3 and the key 1 as a string", got["cart"])
	}
	if s := parseBody(t, "expect:\n  state: {}\n"); s.Expect.State.Whole == nil || len(s.Expect.State.Whole) != 0 {
		t.Errorf("state: {} = %+v; want an empty whole state", s.Expect.State)
	}
	checkParseErrors(t, map[string]string{
		"expect:\n  state:\n    /a: 1\n    b: 2\n": "s.yaml:7: expect.state.b: mixes JSON pointers",
		"expect:\n  state:\n    b: 2\n    /a: 1\n": "s.yaml:7: expect.state./a: mixes JSON pointers",
		"expect:\n  state: [1]\n":                  "s.yaml:5: expect.state: want a mapping",
	})
}

// TestExpectSaidDecoded: each expect.said item holds one text matcher, and
// ignore_case makes a pattern case-insensitive.
func TestExpectSaidDecoded(t *testing.T) {
	s := parseBody(t, "expect:\n  said:\n    - {contains: Done, ignore_case: true}\n    - {matches: '^ok', ignore_case: true}\n    - {equals: exact}\n    - {matches: '^ok'}\n")
	said := s.Expect.Said
	if len(said) != 4 || *said[0].Contains != "Done" || !said[0].IgnoreCase || said[0].Line != 6 {
		t.Fatalf("said = %+v", said)
	}
	if said[1].Matches.String() != "(?i)^ok" || !said[1].Matches.MatchString("OK then") {
		t.Errorf("said[1].Matches = %v; want (?i)^ok", said[1].Matches)
	}
	if *said[2].Equals != "exact" || said[2].IgnoreCase || said[3].Matches.String() != "^ok" {
		t.Errorf("said[2], said[3] = %+v, %+v", said[2], said[3])
	}
	checkParseErrors(t, map[string]string{
		"expect:\n  said: [done]\n":                          "s.yaml:5: expect.said[0]: want a mapping",
		"expect:\n  said: [{equals: a, contains: b}]\n":      "s.yaml:5: expect.said[0]: want exactly one of equals, contains and matches, found 2",
		"expect:\n  said: [{ignore_case: true}]\n":           "s.yaml:5: expect.said[0]: want exactly one of equals, contains and matches, found 0",
		"expect:\n  said: [{matches: '('}]\n":                "s.yaml:5: expect.said[0].matches: invalid regular expression",
		"expect:\n  said: {contains: a}\n":                   "s.yaml:5: expect.said: want a sequence",
		"expect:\n  said: [{contains: a, ignore_case: 1}]\n": "s.yaml:5: expect.said[0].ignore_case:",
	})
}

// TestFaultsDecoded: faults: keeps each entry's keys; a bad entry names its
// line.
func TestFaultsDecoded(t *testing.T) {
	s := parseBody(t, "faults:\n  - {call: 2, http: 429, retry_after: 1s}\n  - {call: 3, stream: cut, after_bytes: 10}\n")
	if len(s.Faults) != 2 || s.Faults[0].Call != 2 || s.Faults[0].HTTP != 429 || s.Faults[0].RetryAfter != time.Second || s.Faults[1].AfterBytes != 10 {
		t.Errorf("faults = %+v", s.Faults)
	}
	checkParseErrors(t, map[string]string{
		"faults: {call: 1, http: 500}\n":                                "s.yaml:4: faults: want a sequence",
		"faults:\n  - {call: 1, htp: 500}\n":                            `s.yaml:5: faults[0]: unknown key "htp"`,
		"faults:\n  - {call: 1, http: 500}\n  - {call: 1, http: 502}\n": "s.yaml:6: faults[1]: call 1 already has faults[0]",
	})
}

// TestWorkspaceFromConfinement: setup.workspace.from must stay inside the
// module holding the scenario (a go.mod above it, however far), else the
// nearest folder named scenarios, else the scenario's own folder; the error
// says which. A go.mod that is a folder does not make a module.
func TestWorkspaceFromConfinement(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, dir := range []string{"mod/seed", "mod/a/b", "tree/scenarios/seed", "plain/seed", "outside", "fake/go.mod", "fake/x"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(dir)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("mod/go.mod", "module example.com/m\n")
	from := func(rel string) string {
		return "format: tapeloop/v1\nsetup:\n  workspace: {from: " + rel + "}\n" + minimal
	}
	cases := []struct{ file, from, want string }{
		{"mod/a/b/s.yaml", "../../seed", ""},
		{"mod/a/b/s.yaml", "../../../outside", "leads outside the module holding the scenario"},
		{"tree/scenarios/x/s.yaml", "../seed", ""},
		{"tree/scenarios/x/s.yaml", "../../../outside", "leads outside the scenarios folder"},
		{"plain/s.yaml", "seed", ""},
		{"plain/s.yaml", "..", "leads outside the scenario's folder"},
		{"plain/s.yaml", "../outside", "leads outside the scenario's folder"},
		{"fake/x/s.yaml", "../../outside", "leads outside the scenario's folder"},
		{"plain/s.yaml", "/etc", "is an absolute path"},
		{"plain/s.yaml", `""`, "empty (name a folder"},
		{"plain/s.yaml", "s.yaml", `"s.yaml" is a regular file, not a folder`},
	}
	for _, c := range cases {
		path := write(c.file, from(c.from))
		s, err := scenario.Load(path, "")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s with from %s: %v", c.file, c.from, err)
		case c.want == "" && s.Setup.Workspace.From != filepath.Join(filepath.Dir(path), filepath.FromSlash(c.from)):
			t.Errorf("%s with from %s: From = %q", c.file, c.from, s.Setup.Workspace.From)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "setup.workspace.from")):
			t.Errorf("%s with from %s: error %v; want setup.workspace.from: ... %s", c.file, c.from, err, c.want)
		}
	}
	// A link inside the scenario's folder that leads out of it.
	if err := os.Symlink(filepath.Join(root, "outside"), filepath.Join(root, "plain", "link")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	_, err := scenario.Load(write("plain/s.yaml", from("link")), "")
	if err == nil || !strings.Contains(err.Error(), `"link" leads outside the scenario's folder through a symbolic link`) {
		t.Errorf("from a link leading out: %v", err)
	}
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

// TestSetValueReplacesAMultiLineScalar: a value written on its key's line
// that goes on over the next lines (a plain or quoted scalar folded over
// lines) is replaced whole.
func TestSetValueReplacesAMultiLineScalar(t *testing.T) {
	for _, src := range []string{
		"format: tapeloop/v1\ndescription: a plain text\n  that goes on\ninput: []\n",
		"format: tapeloop/v1\ndescription: \"a quoted text\n  that goes on\"  # why\ninput: []\n",
	} {
		out, err := scenario.SetValue([]byte(src), "s.yaml", []string{"description"}, yamlx.Text("new"))
		if want := "format: tapeloop/v1\ndescription: new\ninput: []\n"; err != nil || string(out) != want {
			t.Errorf("SetValue(description) of\n%s= %q, %v; want %q", src, out, err, want)
		}
	}
}

// TestSetValueUnderASequence: the last key of a path is a mapping key, so a
// path whose last parent is a sequence item list is refused.
func TestSetValueUnderASequence(t *testing.T) {
	src := "format: tapeloop/v1\ntape:\n  - response: {content: a}\n"
	out, err := scenario.SetValue([]byte(src), "s.yaml", []string{"tape", "0"}, yamlx.Text("new"))
	if want := "cannot edit the scenario file: s.yaml:1: tape: missing or not a mapping"; err == nil || err.Error() != want {
		t.Errorf("SetValue(tape.0) = %q, %v; want %s", out, err, want)
	}
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

// TestSetTapeOnTheFirstLine: a tape whose key is the file's first line is
// replaced in place like any other.
func TestSetTapeOnTheFirstLine(t *testing.T) {
	src := "tape: [{error: boom}]\nformat: tapeloop/v1\ninput: [{role: user, content: hi}]\n"
	out, err := scenario.SetTape([]byte(src), "s.yaml", []replay.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("hi")}}})
	if want := "tape:\n  - response:\n      content: hi\nformat: tapeloop/v1\ninput: [{role: user, content: hi}]\n"; err != nil || string(out) != want {
		t.Errorf("SetTape = %q, %v; want %q", out, err, want)
	}
}

// TestSetValueAddsATopLevelKeyInFormatOrder: a missing top-level key goes
// after the last key that comes before it in the format's order (format
// itself included), after all of that key's value, whatever its layout.
func TestSetValueAddsATopLevelKeyInFormatOrder(t *testing.T) {
	src := "format: tapeloop/v1\ninput: [{role: user, content: hi}]\n"
	out, err := scenario.SetValue([]byte(src), "s.yaml", []string{"name"}, yamlx.Text("x"))
	if want := "format: tapeloop/v1\nname: x\ninput: [{role: user, content: hi}]\n"; err != nil || string(out) != want {
		t.Errorf("SetValue(name) = %q, %v; want %q", out, err, want)
	}
	src = "format: tapeloop/v1\ninput:\n- {role: user, content: hi}\n- {role: user, content: again}\nexpect: {iterations: 1}\n"
	out, err = scenario.SetTape([]byte(src), "s.yaml", []replay.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("hi")}}})
	if want := strings.Replace(src, "expect:", "tape:\n  - response:\n      content: hi\nexpect:", 1); err != nil || string(out) != want {
		t.Errorf("SetTape after input items at column 0 = %q, %v; want %q", out, err, want)
	}
}

// TestMatchVerdictsByModel: an expect.judge item that names its judge
// model takes the recorded verdict of that model, not an earlier one of
// another model for the same rubric.
func TestMatchVerdictsByModel(t *testing.T) {
	s := parseBody(t, `expect:
  judge: [{rubric: is kind, model: openai/a}]
judge:
  - {rubric: is kind, model: openai/b, on: final, judged: hello, score: 1, pass: true, reason: r}
  - {rubric: is kind, model: openai/a, on: final, judged: hello, score: 1, pass: true, reason: r}
`)
	paired, unpaired := s.MatchVerdicts()
	if len(paired) != 1 || paired[0] != 1 || len(unpaired) != 1 || unpaired[0] != 0 {
		t.Errorf("MatchVerdicts = %v, %v; want [1], [0]", paired, unpaired)
	}
}

// TestProblemStringWithoutLine: a problem about the whole file (line 0)
// names the file alone, with no ":0".
func TestProblemStringWithoutLine(t *testing.T) {
	if got := (scenario.Problem{File: "s.yaml", Message: "cannot read it"}).String(); got != "s.yaml: cannot read it" {
		t.Errorf("String = %q, want %q", got, "s.yaml: cannot read it")
	}
	if got := (scenario.Problem{File: "s.yaml", Line: 3, Key: "tape", Message: "m", Warning: true}).String(); got != "s.yaml:3: warning: tape: m" {
		t.Errorf("String = %q", got)
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
	if want := path + ": not a tapeloop scenario: it has no `format: tapeloop/v1` line"; len(problems) != 1 || problems[0].String() != want {
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

// TestIsStaleTempNeedsAGoldenName: a temporary file is a golden update's
// only when a name comes before .golden.yaml.
func TestIsStaleTempNeedsAGoldenName(t *testing.T) {
	if !scenario.IsStaleTemp(".a.golden.yaml.tmp5") || scenario.IsStaleTemp("..golden.yaml.tmp5") {
		t.Errorf("IsStaleTemp(.a.golden.yaml.tmp5, ..golden.yaml.tmp5) = %v, %v; want true, false", scenario.IsStaleTemp(".a.golden.yaml.tmp5"), scenario.IsStaleTemp("..golden.yaml.tmp5"))
	}
}
