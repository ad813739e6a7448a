package replay

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/llm"
)

// Tests here close mutants that scripts/mutation found alive in replay.

// decodeArguments decodes a tape whose one tool call has the YAML arguments
// src (indented under "arguments:") and returns the JSON text they became.
func decodeArguments(t *testing.T, src string) string {
	t.Helper()
	tape := "format: tapeloop/v1\ntape:\n  - response:\n      tool_calls:\n        - name: f\n          arguments: " + src + "\n"
	tp, err := Decode(strings.NewReader(tape), "x.yaml")
	if err != nil {
		t.Fatalf("Decode(arguments: %s): %v", src, err)
	}
	return tp.Entries[0].Response.Message.ToolCalls[0].Arguments
}

func TestArgumentsMappingBecomesJSON(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		// A number or boolean key is a YAML scalar that is not a string: its text is the key.
		{"{1: a, true: b}", `{"1":"a","true":"b"}`},
		{"{x: [1, two, null, 0x10, 1.5, yes]}", `{"x":[1,"two",null,16,1.5,"yes"]}`},
	} {
		if got := decodeArguments(t, tc.src); got != tc.want {
			t.Errorf("arguments: %s became %s, want %s", tc.src, got, tc.want)
		}
	}
}

func TestArgumentsScalarsBecomeJSON(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		// !!binary is base64 in YAML; the argument is the decoded text.
		{"{b: !!binary aGVsbG8=, d: 2001-12-14}", `{"b":"hello","d":"2001-12-14"}`},
		// Floats YAML writes in forms JSON has no room for are rewritten.
		{"[.5, +1e3, 1_000.25]", `[0.5,1000,1000.25]`},
	} {
		if got := decodeArguments(t, tc.src); got != tc.want {
			t.Errorf("arguments: %s became %s, want %s", tc.src, got, tc.want)
		}
	}
}

// A tape of exactly MaxFileSize bytes is read, not refused as too large
// (one byte more is: TestDecodeRefusesHugeInput). Its first line is not
// YAML, so that decoding stops there instead of parsing
// 64 MiB.
func TestDecodeReadsMaxFileSize(t *testing.T) {
	src := "\tx\n" + strings.Repeat("#", MaxFileSize-3)
	_, err := Decode(strings.NewReader(src), "big.yaml")
	if err == nil || strings.Contains(err.Error(), "larger than") || !strings.HasPrefix(err.Error(), "big.yaml: invalid YAML: ") {
		t.Errorf("Decode(%d bytes) error = %v, want the YAML error", len(src), err)
	}
}

func TestDecodeRootThatIsNotAMapping(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		// A document that is only null is an empty file; any other
		// scalar or a sequence is the wrong kind of root.
		{"~\n", "x.yaml:1: empty file (want format: tapeloop/v1 and tape: [...])"},
		{"# a comment\nnull\n", "x.yaml:2: empty file (want format: tapeloop/v1 and tape: [...])"},
		{"hello\n", `x.yaml:1: want a mapping, got a string ("hello")`},
		{"[a]\n", "x.yaml:1: want a mapping, got a sequence"},
	} {
		_, err := Decode(strings.NewReader(tc.src), "x.yaml")
		if err == nil || err.Error() != tc.want {
			t.Errorf("Decode(%q) error = %v, want %s", tc.src, err, tc.want)
		}
	}
}

// DecodeEntries takes the sequence node itself or the document holding it.
func TestDecodeEntriesFromDocumentNode(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("- response: {content: a}\n- user: b\n"), &doc); err != nil {
		t.Fatal(err)
	}
	entries, err := DecodeEntries("t.yaml", &doc)
	if err != nil || len(entries) != 2 || entries[1].Line != 2 {
		t.Errorf("DecodeEntries(document) = %+v, %v; want 2 entries, the second on line 2", entries, err)
	}
}

// Zero is a count like any other (a negative one is refused: TestDecodeErrors).
func TestDecodeZeroCount(t *testing.T) {
	src := "format: tapeloop/v1\ntape:\n  - response:\n      usage: {input_tokens: 0, output_tokens: 7}\n"
	tp, err := Decode(strings.NewReader(src), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if u := tp.Entries[0].Response.Usage; u.InputTokens != 0 || u.OutputTokens != 7 {
		t.Errorf("usage = %+v, want 0 input and 7 output tokens", u)
	}
}

// A response may hold MaxCallsPerResponse calls, not one more.
func TestDecodeMaxCallsPerResponse(t *testing.T) {
	tape := func(n int) string {
		return "format: tapeloop/v1\ntape:\n  - response:\n      tool_calls:\n" + strings.Repeat("        - name: f\n", n)
	}
	tp, err := Decode(strings.NewReader(tape(MaxCallsPerResponse)), "x.yaml")
	if err != nil || len(tp.Entries[0].Response.Message.ToolCalls) != MaxCallsPerResponse {
		t.Errorf("Decode(%d calls) error = %v", MaxCallsPerResponse, err)
	}
	_, err = Decode(strings.NewReader(tape(MaxCallsPerResponse+1)), "x.yaml")
	if want := "x.yaml:5: tape[0].response.tool_calls: 1001 calls, more than the 1000 one response may hold"; err == nil || err.Error() != want {
		t.Errorf("Decode(%d calls) error = %v, want %s", MaxCallsPerResponse+1, err, want)
	}
}

// A tape with no offered block whose requests record only new: still checks
// the messages added between requests.
func TestModelChecksNewWithoutOffered(t *testing.T) {
	src := `format: tapeloop/v1
tape:
  - response:
      tool_calls: [{id: c1, name: read_file, arguments: "{}"}]
  - request:
      new:
        - {role: tool, tool_call_id: c1, name: read_file, content: hello}
    response: {content: done}
`
	call := llm.ToolCall{ID: "c1", Name: "read_file", Arguments: "{}"}
	run := func(result string) error {
		tp, err := Decode(strings.NewReader(src), "new.yaml")
		if err != nil {
			t.Fatal(err)
		}
		m := NewModel(tp, nil)
		user := llm.UserMessage("read it")
		if _, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{user}}); err != nil {
			return err
		}
		_, err = m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{
			user, llm.AssistantMessage("", call), llm.ToolMessage("c1", "read_file", result)}})
		return err
	}
	if err := run("hello"); err != nil {
		t.Fatalf("the recorded result: %v", err)
	}
	if err := run("goodbye"); !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "new differs") {
		t.Errorf("another tool result: err = %v, want a divergence naming new", err)
	}
}

// quoteLast quotes a last message of up to 200 bytes whole and shortens a
// longer one to its first 200.
func TestQuoteLastShortensPast200Bytes(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{200, strings.Repeat("a", 200)}, {201, strings.Repeat("a", 200) + "..."}} {
		req := &llm.Request{Messages: []llm.Message{llm.UserMessage(strings.Repeat("a", tc.n))}}
		if got, want := quoteLast(req), `user message "`+tc.want+`"`; got != want {
			t.Errorf("quoteLast(%d bytes) = %s, want %s", tc.n, got, want)
		}
	}
}

// offered.system is one text or a list of them (each system message);
// system: [] records that the run had none.
func TestDecodeOfferedSystemList(t *testing.T) {
	for src, want := range map[string][]string{"[Be terse., Use tools.]": {"Be terse.", "Use tools."}, "[]": {}} {
		tp, err := Decode(strings.NewReader("format: tapeloop/v1\noffered:\n  system: "+src+"\ntape:\n  - response: {content: hi}\n"), "x.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if tp.Offered == nil || tp.Offered.System == nil || !slices.Equal(tp.Offered.System, want) {
			t.Errorf("system: %s decoded as %+v, want %q", src, tp.Offered, want)
		}
	}
}

// An offered block recording only tools is checked: a run offering other
// tools diverges.
func TestModelChecksToolsOnlyOffered(t *testing.T) {
	src := "format: tapeloop/v1\noffered:\n  tools:\n    - name: read_file\n      description: Read a file.\ntape:\n  - response: {content: hi}\n"
	run := func(tools []llm.ToolDefinition) error {
		tp, err := Decode(strings.NewReader(src), "t.yaml")
		if err != nil {
			t.Fatal(err)
		}
		_, err = NewModel(tp, nil).Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}, Tools: tools})
		return err
	}
	if err := run([]llm.ToolDefinition{{Name: "read_file", Description: "Read a file."}}); err != nil {
		t.Fatalf("the recorded tools: %v", err)
	}
	if err := run([]llm.ToolDefinition{{Name: "read_file", Description: "Read any file."}}); !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "offered.tools differs") {
		t.Errorf("another description: err = %v, want a divergence naming offered.tools", err)
	}
}

// A request sent again unchanged after a provider error (a retry) adds no
// message: the recorder states it as `new: []`, not as a rewritten
// conversation with every message, and the tape replays the retry.
func TestRecorderRetryAddsNoMessages(t *testing.T) {
	calls := 0
	flaky := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		calls++
		if calls == 1 {
			return nil, errors.New("503 overloaded")
		}
		return &llm.Response{Message: llm.AssistantMessage("hello"), FinishReason: llm.FinishStop}, nil
	})
	rec := NewRecorder(flaky, nil)
	req := &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}}
	if _, err := rec.Generate(context.Background(), req); err == nil {
		t.Fatal("the first call did not fail")
	}
	if _, err := rec.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	tp := rec.Tape()
	if len(tp.Entries) != 2 {
		t.Fatalf("%d entries, want 2", len(tp.Entries))
	}
	if r := tp.Entries[1].Request; r == nil || r.New == nil || len(r.New) != 0 || r.Messages != nil {
		t.Errorf("the retry's request = %+v, want new: [] and no message list", r)
	}
	m := NewModel(tp, nil)
	if _, err := m.Generate(context.Background(), req); !errors.Is(err, ErrRecordedError) {
		t.Fatalf("replaying the failed call: %v", err)
	}
	if resp, err := m.Generate(context.Background(), req); err != nil || resp.Message.Content != "hello" {
		t.Errorf("replaying the retry: %+v, %v", resp, err)
	}
}

// Without an offered block, PinningOf counts the model calls whose request
// pins the tool names, and only those.
func TestPinningCountsCallsThatPinToolNames(t *testing.T) {
	tp := recordAgent(t)
	tp.Offered = nil
	tp.Entries[0].Request.Tools = []string{"read_file", "write_file"}
	tp.Entries[1].Request.Tools = []string{"read_file"}
	tp.Entries[2].Request.Tools = nil
	if p := PinningOf(tp); p.ToolNames != 2 || p.Calls != 3 {
		t.Errorf("%+v: want tool names pinned on 2 of 3 model calls", p)
	}
}

// In rebase mode a recorded call to the first tool of the recording's
// offered block, which the agent no longer offers, makes the response stale.
func TestRebaseRefusesACallToTheFirstToolRemoved(t *testing.T) {
	tp := recordAgent(t)
	if len(tp.Offered.Tools) < 2 || tp.Offered.Tools[0].Name != "write_file" {
		t.Fatalf("recorded tools %+v, want write_file first", tp.Offered.Tools)
	}
	a := baseAgent()
	a.tools = a.tools[1:]
	err := a.run(NewModel(tp, &ModelOptions{Rebase: true}))
	if !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "calls write_file, which the agent no longer offers") {
		t.Errorf("run error = %v, want ErrStale naming write_file", err)
	}
}

// In rebase mode a recorded call to a tool the recording did not offer
// either (the model made the name up) is not stale: nothing changed.
func TestRebaseKeepsACallToAToolNeverOffered(t *testing.T) {
	tp := &Tape{
		Offered: &Offered{Tools: []llm.ToolDefinition{{Name: "write_file"}}},
		Entries: []Entry{{Response: &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "c1", Name: "ghost", Arguments: "{}"}), FinishReason: llm.FinishToolCalls}}},
	}
	m := NewModel(tp, &ModelOptions{Rebase: true})
	resp, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}, Tools: []llm.ToolDefinition{{Name: "read_file"}}})
	if err != nil || len(resp.Message.ToolCalls) != 1 || resp.Message.ToolCalls[0].Name != "ghost" {
		t.Errorf("Generate = %+v, %v; want the recorded call to ghost", resp, err)
	}
}

// An offered change replaces only the parts it records: a new system prompt
// keeps the tools offered before, and new tools keep the system prompt.
func TestOfferedChangeKeepsUnrecordedParts(t *testing.T) {
	base := &Offered{System: []string{"old"}, Tools: []llm.ToolDefinition{{Name: "read_file"}}}
	if got := base.with(&Offered{System: []string{"new"}}); !slices.Equal(got.System, []string{"new"}) || len(got.Tools) != 1 || got.Tools[0].Name != "read_file" {
		t.Errorf("a new system prompt: %+v, want system [new] and the tools kept", got)
	}
	if got := base.with(&Offered{Tools: []llm.ToolDefinition{{Name: "write_file"}}}); !slices.Equal(got.System, []string{"old"}) || len(got.Tools) != 1 || got.Tools[0].Name != "write_file" {
		t.Errorf("new tools: %+v, want system [old] kept and the tools [write_file]", got)
	}
	if got := base.with(&Offered{ResponseSchema: []byte(`{"type":"object"}`)}); string(got.ResponseSchema) != `{"type":"object"}` || !slices.Equal(got.System, []string{"old"}) {
		t.Errorf("a new response schema alone: %+v, want it recorded and system [old] kept", got)
	}
}

// Several system prompts are written as a block sequence, one a line; an
// empty list as [].
func TestEncodeOfferedSystemLists(t *testing.T) {
	for _, tc := range []struct {
		system []string
		want   string
	}{
		{[]string{"one", "two"}, "system:\n    - one\n    - two\n"},
		{[]string{}, "system: []\n"},
	} {
		out, err := yaml.Marshal(EncodeOffered(&Offered{System: tc.system}))
		if err != nil || string(out) != tc.want {
			t.Errorf("system %q: %q, %v; want %q", tc.system, out, err, tc.want)
		}
	}
}
