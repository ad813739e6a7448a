package tape

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/fileerr"
)

func TestDecodeErrors(t *testing.T) {
	const head = "format: tapeloop/v1\ntape:\n"
	for _, tc := range []struct {
		name, src, want string
		line            int
		key             string
	}{
		{"unknown key", head + "  - response:\n      content: hi\n  - response:\n      tool_call: []\n",
			`tapes/x.yaml:6: tape[1].response: unknown key "tool_call" (want reasoning, content, tool_calls, finish_reason, usage)`, 6, "tape[1].response"},
		{"unknown top-level key", "format: tapeloop/v1\ncassette: 1\ntape: []\n",
			`tapes/x.yaml:2: unknown key "cassette" (want format, name, offered, tape, judge)`, 2, ""},
		{"unknown entry key", head + "  - respnse: {}\n",
			`tapes/x.yaml:3: tape[0]: unknown key "respnse" (want response, error, user, request)`, 3, "tape[0]"},
		{"duplicate key", head + "  - response:\n      content: a\n      content: b\n",
			`tapes/x.yaml:5: tape[0].response: duplicate key "content"`, 5, "tape[0].response"},
		{"wrong type: mapping for string", head + "  - response:\n      content: {text: hi}\n",
			`tapes/x.yaml:4: tape[0].response.content: want a string, got a mapping`, 4, "tape[0].response.content"},
		{"wrong type: integer for string", head + "  - response:\n      tool_calls:\n        - id: 42\n          name: f\n",
			`tapes/x.yaml:5: tape[0].response.tool_calls[0].id: want a string, got an integer (42); quote it`, 5, "tape[0].response.tool_calls[0].id"},
		{"wrong type: string for count", head + "  - response:\n      usage: {input_tokens: many}\n",
			`tapes/x.yaml:4: tape[0].response.usage.input_tokens: want an integer, got a string ("many")`, 4, "tape[0].response.usage.input_tokens"},
		{"negative count", head + "  - response:\n      usage:\n        output_tokens: -3\n",
			`tapes/x.yaml:5: tape[0].response.usage.output_tokens: want a non-negative integer, got -3`, 5, "tape[0].response.usage.output_tokens"},
		{"wrong type: tape", "format: tapeloop/v1\ntape: {response: {}}\n",
			`tapes/x.yaml:2: tape: want a sequence, got a mapping`, 2, "tape"},
		{"wrong type: arguments", head + "  - response:\n      tool_calls:\n        - name: f\n          arguments: 12\n",
			`tapes/x.yaml:6: tape[0].response.tool_calls[0].arguments: want a string (the raw text) or a mapping, got an integer (12)`, 6, "tape[0].response.tool_calls[0].arguments"},
		{"missing tool name", head + "  - response:\n      tool_calls:\n        - id: c1\n",
			`tapes/x.yaml:5: tape[0].response.tool_calls[0]: missing required key "name"`, 5, "tape[0].response.tool_calls[0]"},
		{"missing response", head + "  - request:\n      tools: []\n",
			`tapes/x.yaml:3: tape[0]: missing required key "response" (or "error", or "user" for a user turn)`, 3, "tape[0]"},
		{"both response and error", head + "  - response: {}\n    error: boom\n",
			`tapes/x.yaml:3: tape[0]: both response and error (want exactly one of response, error and user)`, 3, "tape[0]"},
		{"both response and user", head + "  - response: {}\n    user: hi\n",
			`tapes/x.yaml:3: tape[0]: both response and user (want exactly one of response, error and user)`, 3, "tape[0]"},
		{"user with request", head + "  - user: hi\n    request: {tools: []}\n",
			`tapes/x.yaml:3: tape[0]: a user turn has no request (request: belongs to the model call after it)`, 3, "tape[0]"},
		{"user without content", head + "  - user: {name: mia}\n",
			`tapes/x.yaml:3: tape[0].user: missing required key "content"`, 3, "tape[0].user"},
		{"user unknown key", head + "  - user: {content: hi, role: user}\n",
			`tapes/x.yaml:3: tape[0].user: unknown key "role" (want content, name)`, 3, "tape[0].user"},
		{"empty error", head + "  - error: \"\"\n",
			`tapes/x.yaml:3: tape[0].error: empty error text`, 3, "tape[0].error"},
		{"missing role", head + "  - response: {}\n    request:\n      last_message: {content: hi}\n",
			`tapes/x.yaml:5: tape[0].request.last_message: missing required key "role"`, 5, "tape[0].request.last_message"},
		{"invalid role", head + "  - response: {}\n    request:\n      messages:\n        - role: user\n        - role: bot\n",
			`tapes/x.yaml:7: tape[0].request.messages[1].role: invalid role "bot" (want system, user, assistant, tool)`, 7, "tape[0].request.messages[1].role"},
		{"unknown format", "format: tapeloop/v2\ntape: []\n",
			`tapes/x.yaml:1: format: unsupported format "tapeloop/v2" (want tapeloop/v1)`, 1, "format"},
		{"missing format", "name: x\ntape: []\n",
			`tapes/x.yaml:1: missing required key "format" (want format: tapeloop/v1)`, 1, ""},
		{"missing tape", "format: tapeloop/v1\n",
			`tapes/x.yaml:1: missing required key "tape"`, 1, ""},
		{"empty file", "",
			`tapes/x.yaml: empty file (want format: tapeloop/v1 and tape: [...])`, 0, ""},
		{"not a mapping", "- a\n",
			`tapes/x.yaml:1: want a mapping, got a sequence`, 1, ""},
		{"bad YAML", head + "  - response: {\n",
			`tapes/x.yaml:3: invalid YAML: did not find expected node content`, 3, ""},
		{"two documents", "format: tapeloop/v1\ntape: []\n---\nformat: tapeloop/v1\n",
			`tapes/x.yaml:3: more than one YAML document (want one)`, 3, ""},
		{"alias", head + "  - response: &r {content: hi}\n  - response: *r\n",
			`tapes/x.yaml:4: tape[1].response: aliases are not supported in a tape (write the value out)`, 4, "tape[1].response"},
		{"arguments not JSON-able", head + "  - response:\n      tool_calls:\n        - name: f\n          arguments: {x: .inf}\n",
			`tapes/x.yaml:6: tape[0].response.tool_calls[0].arguments.x: number .inf cannot be written as JSON`, 6, "tape[0].response.tool_calls[0].arguments.x"},
		{"bad binary", head + "  - error: !!binary '%%%'\n",
			`tapes/x.yaml:3: tape[0].error: invalid !!binary value: illegal base64 data at input byte 0`, 3, "tape[0].error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := Decode(strings.NewReader(tc.src), "tapes/x.yaml")
			if err == nil {
				t.Fatalf("Decode succeeded: %+v", tp)
			}
			if err.Error() != tc.want {
				t.Errorf("error:\n got %s\nwant %s", err, tc.want)
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("error does not wrap ErrFormat")
			}
			var fe *fileerr.Error
			if !errors.As(err, &fe) {
				t.Fatalf("error is not a *fileerr.Error")
			}
			if fe.File != "tapes/x.yaml" || fe.Line != tc.line || fe.Key != tc.key {
				t.Errorf("fileerr.Error{File: %q, Line: %d, Key: %q}, want {tapes/x.yaml, %d, %q}", fe.File, fe.Line, fe.Key, tc.line, tc.key)
			}
		})
	}
}

func TestDecodeRefusesHugeInput(t *testing.T) {
	r := strings.NewReader(strings.Repeat("#", MaxFileSize+1))
	_, err := Decode(r, "big.yaml")
	if err == nil || err.Error() != "big.yaml: file is larger than 64 MiB; refusing to decode it" || !errors.Is(err, ErrFormat) {
		t.Errorf("Decode(64 MiB + 1) error = %v", err)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing) error = %v, want os.ErrNotExist", err)
	}
}

// A scenario file embeds the tape; DecodeEntries reads its node with lines
// relative to the scenario file.
func TestDecodeEntriesFromScenarioNode(t *testing.T) {
	src := `format: tapeloop/v1
name: files/append-line
input:
  - {role: user, content: "Append it."}
tape:
  - response:
      content: "I'll append it."
      tool_calls:
        - id: call_1
          name: write_file
          arguments: '{"path": "notes.txt",}'
  - response:
      content: Done.
      finish_reason: stop
      usage: {input_tokens: 1, outptu_tokens: 2}
`
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	tapeNode := doc.Content[0].Content[7]
	_, err := DecodeEntries("scenarios/append.yaml", tapeNode)
	want := `scenarios/append.yaml:15: tape[1].response.usage: unknown key "outptu_tokens" (want input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens)`
	if err == nil || err.Error() != want {
		t.Fatalf("DecodeEntries error:\n got %v\nwant %s", err, want)
	}
	// Fixed, it decodes with scenario-relative lines, and re-encodes.
	src = strings.Replace(src, "outptu", "output", 1)
	doc = yaml.Node{}
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	entries, err := DecodeEntries("scenarios/append.yaml", doc.Content[0].Content[7])
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Line != 6 || entries[1].Line != 12 {
		t.Fatalf("entries = %+v, want 2 at lines 6 and 12", entries)
	}
	if got := entries[0].Response.Message.ToolCalls[0].Arguments; got != `{"path": "notes.txt",}` {
		t.Errorf("arguments = %q", got)
	}
	node, err := EncodeEntries(entries)
	if err != nil {
		t.Fatal(err)
	}
	out, err := yaml.Marshal(map[string]*yaml.Node{"tape": node})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `arguments: '{"path": "notes.txt",}'`) {
		t.Errorf("embedded tape lost the raw arguments:\n%s", out)
	}
	if _, err := DecodeEntries("s.yaml", nil); err == nil || err.Error() != "s.yaml: tape: missing (want a sequence of entries)" {
		t.Errorf("DecodeEntries(nil) error = %v", err)
	}
}

func TestDecodeMessages(t *testing.T) {
	var doc yaml.Node
	src := "input:\n  - {role: system, content: Be terse.}\n  - {role: usr, content: hi}\n"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	_, err := DecodeMessages("s.yaml", "input", doc.Content[0].Content[1])
	if want := `s.yaml:3: input[1].role: invalid role "usr" (want system, user, assistant, tool)`; err == nil || err.Error() != want {
		t.Errorf("error:\n got %v\nwant %s", err, want)
	}
	if _, err := DecodeMessages("s.yaml", "input", nil); err == nil || err.Error() != "s.yaml: input: missing (want a sequence of messages)" {
		t.Errorf("DecodeMessages(nil) error = %v", err)
	}
}

// TestDecodeReadError: a reader that fails is reported as the read's
// error, naming the tape, not as an empty file.
func TestDecodeReadError(t *testing.T) {
	_, err := Decode(iotest.ErrReader(errors.New("disk on fire")), "t.yaml")
	if err == nil || err.Error() != "reading tape t.yaml: disk on fire" {
		t.Errorf("Decode of a failing reader = %v; want the read error", err)
	}
}

// TestDecodeErrorsNameTheKey: a bad value under each usage count, an
// error entry's message and an offered tool's fields is reported under its
// own key path.
func TestDecodeErrorsNameTheKey(t *testing.T) {
	const head = "format: tapeloop/v1\ntape:\n"
	cases := map[string]string{
		head + "  - error: {message: [a]}\n": "t.yaml:3: tape[0].error.message: want a string, got a sequence",
	}
	for _, key := range []string{"input_tokens", "output_tokens", "cached_input_tokens", "cache_write_tokens", "reasoning_tokens"} {
		cases[head+"  - response: {content: hi, usage: {"+key+": -1}}\n"] = "t.yaml:3: tape[0].response.usage." + key + ": want a non-negative integer, got -1"
	}
	for key, tool := range map[string]string{
		"name":        "{name: [x], description: b, parameters: {type: object}}",
		"description": "{name: a, description: [x], parameters: {type: object}}",
		"parameters":  "{name: a, description: b, parameters: [x]}",
	} {
		cases["format: tapeloop/v1\noffered:\n  tools:\n    - "+tool+"\ntape:\n  - response: {content: hi}\n"] = "t.yaml:4: offered.tools[0]." + key + ": want "
	}
	for src, want := range cases {
		_, err := Decode(strings.NewReader(src), "t.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: error %v\nwant %s", src, err, want)
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
	recorded := func(n int) string {
		return "format: tapeloop/v1\ntape:\n  - response:\n      tool_calls:\n" + strings.Repeat("        - name: f\n", n)
	}
	tp, err := Decode(strings.NewReader(recorded(MaxCallsPerResponse)), "x.yaml")
	if err != nil || len(tp.Entries[0].Response.Message.ToolCalls) != MaxCallsPerResponse {
		t.Errorf("Decode(%d calls) error = %v", MaxCallsPerResponse, err)
	}
	_, err = Decode(strings.NewReader(recorded(MaxCallsPerResponse+1)), "x.yaml")
	if want := "x.yaml:5: tape[0].response.tool_calls: 1001 calls, more than the 1000 one response may hold"; err == nil || err.Error() != want {
		t.Errorf("Decode(%d calls) error = %v, want %s", MaxCallsPerResponse+1, err, want)
	}
}

// TestLoadClosesTheFile: loading a tape leaves no file open, so that a
// suite loading many tapes does not run out of descriptors.
func TestLoadClosesTheFile(t *testing.T) {
	open := func() int {
		fds, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skipf("cannot count open files without /proc/self/fd: %v", err)
		}
		return len(fds)
	}
	// The first file a process opens starts the runtime's poller, whose
	// descriptors stay: load once before counting.
	if _, err := Load("testdata/canonical.yaml"); err != nil {
		t.Fatal(err)
	}
	before := open()
	for range 20 {
		if _, err := Load("testdata/canonical.yaml"); err != nil {
			t.Fatal(err)
		}
	}
	if after := open(); after > before {
		t.Errorf("%d files open after 20 loads, %d before", after, before)
	}
}

// TestCallsOfOneToolShareItsName: the calls of an entry that name one tool
// keep one string for the name, not one each (a 1,000-call response would
// keep 1,000).
func TestCallsOfOneToolShareItsName(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("response:\n  tool_calls:\n    - {id: a, name: echo}\n    - {id: b, name: echo}\n    - {id: c, name: other}\n"), &doc); err != nil {
		t.Fatal(err)
	}
	e, err := DecodeEntry("t.yaml", 0, doc.Content[0])
	if err != nil {
		t.Fatal(err)
	}
	calls := e.Response.Message.ToolCalls
	if len(calls) != 3 || calls[0].Name != "echo" || calls[1].Name != "echo" || calls[2].Name != "other" {
		t.Fatalf("calls = %+v", calls)
	}
	if unsafe.StringData(calls[0].Name) != unsafe.StringData(calls[1].Name) {
		t.Errorf("two calls of echo keep a string each")
	}
}
