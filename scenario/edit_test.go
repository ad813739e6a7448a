package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

// authored is a scenario as a person writes it: comments everywhere, blank
// lines, flow and block styles, quoting, keys after the tape.
const authored = `# A scenario someone cares about.
format: tapeloop/v1
name: edit/authored   # the name stays
description: "Quoted, as written."
tags: [files]

setup:
  workspace:
    files: {notes.txt: "hello\n"}   # flow style kept
  tools:
    - read_file # first
    - write_file

input:
  - {role: user, content: "Append 'world'."}

# The tape below is replaced.
tape:
  - response:
      content: old # an old comment
  # between entries
  - response: {content: "older"}

# Expectations, reviewed by hand.
expect:
  termination: final_text   # keep
  final: {contains: "world"}
# trailing comment
`

// recorded is a tape with the texts that need care: a multi-line content
// with a trailing space, JSON arguments, a request summary.
func recorded() []tape.Entry {
	return []tape.Entry{
		{Response: &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "write_file", Arguments: `{"path":"notes.txt","content":"hello\nworld\n"}`}), FinishReason: llm.FinishToolCalls},
			Request: &tape.RequestSummary{Tools: []string{"read_file", "write_file"}, LastMessage: &llm.Message{Role: llm.RoleUser, Content: "Append 'world'."}}},
		{Response: &llm.Response{Message: llm.AssistantMessage("Done: \nhello\nworld"), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 10, OutputTokens: 3}}},
	}
}

func TestSetTapeKeepsTheRestOfTheFile(t *testing.T) {
	out, err := SetTape([]byte(authored), "s.yaml", recorded())
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	before, _, _ := strings.Cut(authored, "tape:\n")
	_, after, _ := strings.Cut(authored, `  - response: {content: "older"}`+"\n")
	if !strings.HasPrefix(got, before+"tape:\n") {
		t.Errorf("the part before the tape changed:\n%s", got)
	}
	if !strings.HasSuffix(got, after) {
		t.Errorf("the part after the tape changed:\n%s", got)
	}
	wantTape := `tape:
  - response:
      tool_calls:
        - id: call_1
          name: write_file
          arguments: '{"path":"notes.txt","content":"hello\nworld\n"}'
      finish_reason: tool_calls
    request:
      tools: [read_file, write_file]
      last_message:
        role: user
        content: Append 'world'.
  - response:
      content: |-
        Done: 
        hello
        world
      finish_reason: stop
      usage:
        input_tokens: 10
        output_tokens: 3
`
	if want := before + wantTape + after; got != want {
		t.Errorf("SetTape wrote\n%s\nwant\n%s", got, want)
	}
	s, err := Parse(out, "s.yaml", "s")
	if err != nil {
		t.Fatalf("the edited scenario does not load: %v", err)
	}
	if len(s.Tape) != 2 || s.Tape[1].Response.Message.Content != "Done: \nhello\nworld" || s.Tape[0].Response.Message.ToolCalls[0].Arguments != recorded()[0].Response.Message.ToolCalls[0].Arguments {
		t.Errorf("the tape read back as %+v", s.Tape)
	}
	if s.Expect == nil || s.Expect.Final == nil || *s.Expect.Final.Contains != "world" {
		t.Errorf("expect read back as %+v", s.Expect)
	}
}

func TestSetTapeShapes(t *testing.T) {
	one := []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("hi")}}}
	cases := []struct {
		name, src, want string
	}{
		{name: "flow tape",
			src:  "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []  \nexpect: {iterations: 1}\n",
			want: "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape:\n  - response:\n      content: hi\nexpect: {iterations: 1}\n"},
		{name: "items at the key's column",
			src:  "format: tapeloop/v1\ninput:\n- {role: user, content: hi}\ntape:\n- response: {content: old}\n- error: boom\nexpect:\n  iterations: 1\n",
			want: "format: tapeloop/v1\ninput:\n- {role: user, content: hi}\ntape:\n  - response:\n      content: hi\nexpect:\n  iterations: 1\n"},
		{name: "last key without a final newline",
			src:  "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape:\n  - error: boom",
			want: "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape:\n  - response:\n      content: hi"},
		{name: "missing tape goes after input",
			src:  "format: tapeloop/v1\ninput:\n  - {role: user, content: hi}\n\nexpect: {iterations: 1}\n",
			want: "format: tapeloop/v1\ninput:\n  - {role: user, content: hi}\n\ntape:\n  - response:\n      content: hi\n\nexpect: {iterations: 1}\n"},
		{name: "missing tape at the end",
			src:  "format: tapeloop/v1\ninput: [{role: user, content: hi}]",
			want: "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape:\n  - response:\n      content: hi\n"},
		{name: "an empty recording",
			src:  "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape:\n  - error: boom\n",
			want: "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			entries := one
			if c.name == "an empty recording" {
				entries = nil
			}
			out, err := SetTape([]byte(c.src), "s.yaml", entries)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != c.want {
				t.Errorf("got\n%q\nwant\n%q", out, c.want)
			}
		})
	}
}

func TestSetTapeRefuses(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{name: "flow mapping", src: "{format: tapeloop/v1, tape: []}\n",
			want: "cannot edit the scenario file: s.yaml:1: the file is one flow mapping ({...}); write it as a block to edit it in place"},
		{name: "not a mapping", src: "- a\n- b\n",
			want: "cannot edit the scenario file: s.yaml:1: the file is not a YAML mapping"},
		{name: "bad YAML", src: "tape: [\n",
			want: "cannot edit the scenario file: s.yaml: yaml: line 1: did not find expected node content"},
		// A flow sequence closed at the key's column: the text after the
		// key cannot be located by indentation, and the check catches it.
		{name: "unusual layout", src: "format: tapeloop/v1\ntape: [\n]\n",
			want: "cannot edit the scenario file: s.yaml: writing tape in place would give a file that does not parse (yaml: line 2: did not find expected key)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := SetTape([]byte(c.src), "s.yaml", nil)
			if !errors.Is(err, ErrEdit) {
				t.Fatalf("SetTape = %q, %v; want an error wrapping ErrEdit", out, err)
			}
			if err.Error() != c.want {
				t.Errorf("error\n%s\nwant\n%s", err, c.want)
			}
		})
	}
}

func TestAppendTapeKeepsTheOldEntries(t *testing.T) {
	out, err := AppendTape([]byte(authored), "s.yaml", recorded()[1:])
	if err != nil {
		t.Fatal(err)
	}
	old := "tape:\n  - response:\n      content: old # an old comment\n  # between entries\n  - response: {content: \"older\"}\n"
	added := "  - response:\n      content: |-\n        Done: \n        hello\n        world\n      finish_reason: stop\n      usage:\n        input_tokens: 10\n        output_tokens: 3\n"
	want := strings.Replace(authored, old, old+added, 1)
	if string(out) != want {
		t.Errorf("AppendTape wrote\n%s\nwant\n%s", out, want)
	}
	// A flow tape is rewritten with the old entries first.
	out, err = AppendTape([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: [{response: {content: a}}]\n"), "s.yaml", recorded()[1:2])
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(out, "s.yaml", "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tape) != 2 || s.Tape[0].Response.Message.Content != "a" || s.Tape[1].Response.Usage.OutputTokens != 3 {
		t.Errorf("got tape %+v from\n%s", s.Tape, out)
	}
}

func TestSetValueNested(t *testing.T) {
	tools := yamlx.Seq(yamlx.Text("read_file"), yamlx.Map())
	yamlx.Add(tools.Content[1], "name", yamlx.Text("search"))
	yamlx.Add(tools.Content[1], "fixture", yamlx.Text("recorded"))
	out, err := SetValue([]byte(authored), "s.yaml", []string{"setup", "tools"}, tools)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(authored, "  tools:\n    - read_file # first\n    - write_file\n",
		"  tools:\n    - read_file\n    - name: search\n      fixture: recorded\n", 1)
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// A missing key is added at the end of its mapping.
	out, err = SetValue([]byte(authored), "s.yaml", []string{"setup", "seed"}, yamlx.Int(7))
	if err != nil {
		t.Fatal(err)
	}
	want = strings.Replace(authored, "    - write_file\n", "    - write_file\n  seed: 7\n", 1)
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if _, err := SetValue([]byte(authored), "s.yaml", []string{"nope", "x"}, yamlx.Int(1)); !errors.Is(err, ErrEdit) || !strings.Contains(err.Error(), "s.yaml:2: nope: missing or not a mapping") {
		t.Errorf("a missing parent: %v", err)
	}
}

func TestWriteTape(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte(authored), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteTape(path, recorded()); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tape) != 2 {
		t.Errorf("tape has %d entries, want 2", len(s.Tape))
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "# Expectations, reviewed by hand.\n") {
		t.Errorf("a comment was lost:\n%s", data)
	}
	// A file that cannot be edited is left as it was, with no temp file.
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("format: tapeloop/v1\ntape: [\n]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteTape(bad, recorded()); !errors.Is(err, ErrEdit) {
		t.Errorf("WriteTape(bad) = %v, want ErrEdit", err)
	}
	if data, _ := os.ReadFile(bad); string(data) != "format: tapeloop/v1\ntape: [\n]\n" {
		t.Errorf("bad.yaml changed to %q", data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("the folder holds %d files, want 2", len(entries))
	}
	if err := WriteTape(dir, recorded()); !errors.Is(err, ErrEdit) {
		t.Errorf("WriteTape(a folder) = %v, want ErrEdit", err)
	}
}

// TestSetTapeOnBundledScenarios rewrites every bundled scenario's tape with
// itself: the file must still load to the same scenario.
func TestSetTapeOnBundledScenarios(t *testing.T) {
	paths, err := filepath.Glob("../scenarios/*/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range paths {
		if strings.HasSuffix(p, ".golden.yaml") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse(src, p, "x")
		if err != nil {
			continue // not a scenario this package reads
		}
		n++
		out, err := SetTape(src, p, s.Tape)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		s2, err := Parse(out, p, "x")
		if err != nil {
			t.Errorf("%s: the rewritten file does not load: %v", p, err)
			continue
		}
		if canonical(t, s.Tape) != canonical(t, s2.Tape) {
			t.Errorf("%s: the tape changed:\n%s", p, out)
		}
		var a, b yaml.Node
		if yaml.Unmarshal(src, &a) != nil || yaml.Unmarshal(out, &b) != nil {
			t.Fatalf("%s: does not parse", p)
		}
		_, ta := lookup(a.Content[0], "tape")
		_, tb := lookup(b.Content[0], "tape")
		*ta, *tb = yaml.Node{Kind: yaml.ScalarNode}, yaml.Node{Kind: yaml.ScalarNode}
		if !sameTree(a.Content[0], b.Content[0], false) {
			t.Errorf("%s: rewriting the tape changed the rest of the document:\n%s", p, out)
		}
	}
	if n == 0 {
		t.Fatal("no bundled scenario found")
	}
}

// canonical returns the canonical text of entries.
func canonical(t *testing.T, entries []tape.Entry) string {
	t.Helper()
	n, err := tape.EncodeEntries(entries)
	if err != nil {
		t.Fatal(err)
	}
	b, err := yamlx.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCheckEditCatchesOtherChanges feeds the check an edit that also changed
// another key: it must refuse it.
func TestCheckEditCatchesOtherChanges(t *testing.T) {
	src := []byte("format: tapeloop/v1\ntape: []\nexpect: {iterations: 1}\n")
	want := yamlx.FlowSeq()
	if err := checkEdit(src, []byte("format: tapeloop/v1\ntape: []\nexpect: {iterations: 1}\n"), "s.yaml", []string{"tape"}, want); err != nil {
		t.Fatalf("an unchanged file: %v", err)
	}
	err := checkEdit(src, []byte("format: tapeloop/v1\ntape: []\nexpect: {iterations: 2}\n"), "s.yaml", []string{"tape"}, want)
	if !errors.Is(err, ErrEdit) || err.Error() != "cannot edit the scenario file: s.yaml: writing tape in place would change other parts of the file" {
		t.Errorf("checkEdit = %v", err)
	}
	err = checkEdit(src, []byte("format: tapeloop/v1\ntape: [{error: x}]\nexpect: {iterations: 1}\n"), "s.yaml", []string{"tape"}, want)
	if !errors.Is(err, ErrEdit) {
		t.Errorf("a tape other than the one written: %v", err)
	}
}

// TestSetValueInASequenceItem: a number in the path picks a sequence item,
// so that one tape entry's request is replaced, or added after the entry's
// last key, with the comments around it kept.
func TestSetValueInASequenceItem(t *testing.T) {
	src := `format: tapeloop/v1
input: []
tape:
  # first
  - response: {content: a}
    request:   # pinned
      tools: [x]
  # second
  - response:
      content: b
  - {user: "flow"}
expect: {}
`
	req := yamlx.Map()
	yamlx.Add(req, "tools", yamlx.FlowSeq(yamlx.Text("y")))
	out, err := SetValue([]byte(src), "s.yaml", []string{"tape", "0", "request"}, req)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(src, "    request:   # pinned\n      tools: [x]\n", "    request:\n      tools: [y]\n", 1); string(out) != want {
		t.Errorf("replacing tape[0].request:\n%s\nwant\n%s", out, want)
	}
	out, err = SetValue([]byte(src), "s.yaml", []string{"tape", "1", "request"}, req)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(src, "      content: b\n", "      content: b\n    request:\n      tools: [y]\n", 1); string(out) != want {
		t.Errorf("adding tape[1].request:\n%s\nwant\n%s", out, want)
	}
	for _, path := range [][]string{{"tape", "2", "request"}, {"tape", "7", "request"}, {"tape", "x", "request"}} {
		if _, err := SetValue([]byte(src), "s.yaml", path, req); !errors.Is(err, ErrEdit) {
			t.Errorf("%v: err = %v, want ErrEdit", path, err)
		}
	}
}

// FuzzSetTapeReadsBack: whatever strings a recording holds (a model's
// answer, a tool call's name, id and arguments, the user's turn, an error
// text), the file SetTape writes parses back as a scenario whose tape holds
// them unchanged, or SetTape refuses it; never a file later commands refuse
// (issue 39, item 13).
func FuzzSetTapeReadsBack(f *testing.F) {
	for _, s := range []string{"", "plain", "yes", "~", "null", "0x1F", "1e3", ".inf", "- a", "? k", ": v", "&anchor x", "*alias", "!!binary AA==", "!tag v", "#comment", "%YAML 1.2", "---", "...", "a: b", "{x: y}", "[1]", "'quoted'", "\"dq\"", "|", ">", "line\nbreak", "cr\rnot", "crlf\r\nend", "tab\tin", "nul\x00byte", "bell\x07", "del\x7f", "\x85next", "\u2028ls", "\ufeffbom", "invalid\xff\xfeutf8", "trail ", " lead", "\n", "\n\n", strings.Repeat("long ", 20000)} {
		f.Add(s, "call_1", "{}")
	}
	f.Fuzz(func(t *testing.T, text, id, args string) {
		src := []byte("format: tapeloop/v1\ninput:\n  - {role: user, content: hi}\ntape: []\n")
		entries := []tape.Entry{
			{Response: &llm.Response{Message: llm.AssistantMessage(text, llm.ToolCall{ID: id, Name: text, Arguments: args})}},
			{User: &llm.Message{Role: llm.RoleUser, Content: text}},
			{Response: &llm.Response{Message: llm.AssistantMessage(args)}, Request: &tape.RequestSummary{Tools: []string{}, LastMessage: &llm.Message{Role: llm.RoleTool, Content: text, ToolCallID: id}}},
			{Error: text},
		}
		out, err := SetTape(src, "s.yaml", entries)
		if err != nil {
			return // refused before anything is written
		}
		s, err := Parse(out, "s.yaml", "s")
		if err != nil {
			t.Fatalf("SetTape wrote a file Parse refuses: %v\n%q", err, out)
		}
		if len(s.Tape) != len(entries) {
			t.Fatalf("read back %d entries, wrote %d\n%q", len(s.Tape), len(entries), out)
		}
		got := s.Tape[0].Response.Message
		if got.Content != text || got.ToolCalls[0].Name != text || got.ToolCalls[0].ID != id || got.ToolCalls[0].Arguments != args {
			t.Fatalf("entry 1 read back as %q, %+v; wrote %q, %q, %q", got.Content, got.ToolCalls, text, id, args)
		}
		if s.Tape[1].User.Content != text || s.Tape[2].Request.LastMessage.Content != text || s.Tape[2].Response.Message.Content != args {
			t.Fatalf("entries 2, 3 read back as %q, %q, %q", s.Tape[1].User.Content, s.Tape[2].Request.LastMessage.Content, s.Tape[2].Response.Message.Content)
		}
		if (text != "" || s.Tape[3].Error != "") && s.Tape[3].Error != text {
			t.Fatalf("entry 4's error read back as %q, wrote %q", s.Tape[3].Error, text)
		}
	})
}

// TestCheckReadable: text over MaxScenarioSize, and text Parse refuses,
// are refused with ErrUnreadable and the reason; WriteFile then leaves the
// file as it was (issue 39, item 13).
func TestCheckReadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	good := "format: tapeloop/v1\ninput:\n  - {role: user, content: hi}\ntape: []\n"
	if err := WriteFile(path, []byte(good)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"too large", good + "# " + strings.Repeat("x", MaxScenarioSize) + "\n", "16 MiB a scenario may have"},
		{"refused by Parse", good + "expect: {nope: 1}\n", "s.yaml:5"},
	} {
		err := WriteFile(path, []byte(tc.text))
		if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want ErrUnreadable saying %q", tc.name, err, tc.want)
		}
		if data, _ := os.ReadFile(path); string(data) != good {
			t.Errorf("%s: the file was rewritten", tc.name)
		}
	}
}

// TestSetValueInAFlowMapping: a key inside a flow mapping ({...}) is set
// by writing that mapping anew in flow style; the lines around it stay
// byte for byte (issue 39, item 14).
func TestSetValueInAFlowMapping(t *testing.T) {
	src := "format: tapeloop/v1\n# the setup\nsetup: {workspace: {from: ../seed}, tools: [read_file]}   # flow\ninput:\n  - {role: user, content: hi}\ntape: []\n"
	out, err := SetValue([]byte(src), "s.yaml", []string{"setup", "workspace", "from"}, yamlx.Text("../other"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(src, "{from: ../seed}, tools: [read_file]}   # flow", "{from: ../other}, tools: [read_file]} # flow", 1); string(out) != want {
		t.Errorf("setting setup.workspace.from:\n%s\nwant\n%s", out, want)
	}
	out, err = SetValue(out, "s.yaml", []string{"setup", "seed"}, yamlx.Int(7))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(src, "{from: ../seed}, tools: [read_file]}   # flow", "{from: ../other}, tools: [read_file], seed: 7} # flow", 1); string(out) != want {
		t.Errorf("adding setup.seed:\n%s\nwant\n%s", out, want)
	}
	if !strings.HasPrefix(string(out), "format: tapeloop/v1\n# the setup\nsetup: {") || !strings.HasSuffix(string(out), "input:\n  - {role: user, content: hi}\ntape: []\n") {
		t.Errorf("adding setup.seed changed the lines around it:\n%s", out)
	}
}

// TestSetValueInAFlowItem: a key of a flow mapping that is an item of a
// block sequence cannot be edited in place: the edit is refused, saying so,
// and nothing is returned.
func TestSetValueInAFlowItem(t *testing.T) {
	src := "format: tapeloop/v1\ninput:\n  - {role: user, content: hi}\ntape: []\n"
	out, err := SetValue([]byte(src), "s.yaml", []string{"input", "0", "content"}, yamlx.Text("bye"))
	if err == nil || !errors.Is(err, ErrEdit) || !strings.Contains(err.Error(), "s.yaml:3: input.0.content: its mapping is in flow style ({...}); write it as a block to edit it in place") || out != nil {
		t.Errorf("SetValue in a flow item = %q, %v; want the flow-style error", out, err)
	}
}

// TestSetValueInAFlowMappingRefuses: inside a flow collection, a path
// through a key that is missing, or ending in a sequence, names no place for
// the value: an error naming the key, nothing returned.
func TestSetValueInAFlowMappingRefuses(t *testing.T) {
	src := "format: tapeloop/v1\nsetup: {workspace: {from: ../seed}, tools: [read_file]}\ninput:\n  - {role: user, content: hi}\ntape: []\n"
	for _, tc := range []struct {
		path []string
		want string
	}{
		{[]string{"setup", "loop", "memoize"}, "s.yaml:2: setup.loop.memoize: loop: missing or not a mapping"},
		{[]string{"setup", "tools", "name"}, "s.yaml:2: setup.tools.name: name: its parent is not a mapping"},
	} {
		out, err := SetValue([]byte(src), "s.yaml", tc.path, yamlx.Text("x"))
		if err == nil || !errors.Is(err, ErrEdit) || !strings.Contains(err.Error(), tc.want) || out != nil {
			t.Errorf("SetValue(%v) = %q, %v; want an ErrEdit saying %q", tc.path, out, err, tc.want)
		}
	}
}

// TestSetTapeRefusesALongUserTurn: a tape whose user turns alone pass the
// size a scenario may have is refused before it is encoded, saying so.
func TestSetTapeRefusesALongUserTurn(t *testing.T) {
	long := strings.Repeat("a", MaxScenarioSize+1)
	entries := []tape.Entry{
		{Response: &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "hello"}}},
		{User: &llm.Message{Role: llm.RoleUser, Content: long}},
	}
	out, err := SetTape([]byte(authored), "s.yaml", entries)
	if err == nil || !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "s.yaml: ") || !strings.Contains(err.Error(), "its tape alone would be more than 16.0 MiB") || out != nil {
		t.Errorf("SetTape with a user turn of %d bytes = %d bytes, %v; want the size error", len(long), len(out), err)
	}
}

// TestAppendTapeAtColumnZero: a tape whose items start at the key's column
// (no indentation) is appended to in place, at that column, keeping the old
// entries as written.
func TestAppendTapeAtColumnZero(t *testing.T) {
	src := "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape:\n- response: {content: old}  # kept\n"
	out, err := AppendTape([]byte(src), "s.yaml", []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("new")}}})
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
	err := WriteTape(sized("max.yaml", MaxScenarioSize), nil)
	if !errors.Is(err, ErrEdit) || strings.Contains(err.Error(), "more than") {
		t.Errorf("WriteTape of a file of MaxScenarioSize bytes = %v; want the edit's error about its content", err)
	}
	err = WriteTape(sized("over.yaml", MaxScenarioSize+1), nil)
	if want := "16777217 bytes is more than the 16777216 a scenario may have"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("WriteTape of a file of MaxScenarioSize+1 bytes = %v; want %q", err, want)
	}
}

// TestSetValueItemPastTheEnd: an index one past a sequence's last item, or
// below zero, names no item: an error, nothing written.
func TestSetValueItemPastTheEnd(t *testing.T) {
	src := "format: tapeloop/v1\ninput: []\ntape:\n  - response: {content: a}\n  - response: {content: b}\n"
	for _, path := range [][]string{{"tape", "2", "request"}, {"tape", "-1", "request"}} {
		out, err := SetValue([]byte(src), "s.yaml", path, yamlx.Map())
		if !errors.Is(err, ErrEdit) || !strings.Contains(err.Error(), "missing or not a mapping") {
			t.Errorf("SetValue(%v) = %q, %v; want an error wrapping ErrEdit", path, out, err)
		}
	}
}

// TestSetValueReplacesAMultiLineScalar: a value written on its key's line
// that goes on over the next lines (a plain or quoted scalar folded over
// lines) is replaced whole.
func TestSetValueReplacesAMultiLineScalar(t *testing.T) {
	for _, src := range []string{
		"format: tapeloop/v1\ndescription: a plain text\n  that goes on\ninput: []\n",
		"format: tapeloop/v1\ndescription: \"a quoted text\n  that goes on\"  # why\ninput: []\n",
	} {
		out, err := SetValue([]byte(src), "s.yaml", []string{"description"}, yamlx.Text("new"))
		if want := "format: tapeloop/v1\ndescription: new\ninput: []\n"; err != nil || string(out) != want {
			t.Errorf("SetValue(description) of\n%s= %q, %v; want %q", src, out, err, want)
		}
	}
}

// TestSetValueUnderASequence: the last key of a path is a mapping key, so a
// path whose last parent is a sequence item list is refused.
func TestSetValueUnderASequence(t *testing.T) {
	src := "format: tapeloop/v1\ntape:\n  - response: {content: a}\n"
	out, err := SetValue([]byte(src), "s.yaml", []string{"tape", "0"}, yamlx.Text("new"))
	if want := "cannot edit the scenario file: s.yaml:1: tape: missing or not a mapping"; err == nil || err.Error() != want {
		t.Errorf("SetValue(tape.0) = %q, %v; want %s", out, err, want)
	}
}

// TestSetTapeOnTheFirstLine: a tape whose key is the file's first line is
// replaced in place like any other.
func TestSetTapeOnTheFirstLine(t *testing.T) {
	src := "tape: [{error: boom}]\nformat: tapeloop/v1\ninput: [{role: user, content: hi}]\n"
	out, err := SetTape([]byte(src), "s.yaml", []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("hi")}}})
	if want := "tape:\n  - response:\n      content: hi\nformat: tapeloop/v1\ninput: [{role: user, content: hi}]\n"; err != nil || string(out) != want {
		t.Errorf("SetTape = %q, %v; want %q", out, err, want)
	}
}

// TestSetValueAddsATopLevelKeyInFormatOrder: a missing top-level key goes
// after the last key that comes before it in the format's order (format
// itself included), after all of that key's value, whatever its layout.
func TestSetValueAddsATopLevelKeyInFormatOrder(t *testing.T) {
	src := "format: tapeloop/v1\ninput: [{role: user, content: hi}]\n"
	out, err := SetValue([]byte(src), "s.yaml", []string{"name"}, yamlx.Text("x"))
	if want := "format: tapeloop/v1\nname: x\ninput: [{role: user, content: hi}]\n"; err != nil || string(out) != want {
		t.Errorf("SetValue(name) = %q, %v; want %q", out, err, want)
	}
	src = "format: tapeloop/v1\ninput:\n- {role: user, content: hi}\n- {role: user, content: again}\nexpect: {iterations: 1}\n"
	out, err = SetTape([]byte(src), "s.yaml", []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("hi")}}})
	if want := strings.Replace(src, "expect:", "tape:\n  - response:\n      content: hi\nexpect:", 1); err != nil || string(out) != want {
		t.Errorf("SetTape after input items at column 0 = %q, %v; want %q", out, err, want)
	}
}
