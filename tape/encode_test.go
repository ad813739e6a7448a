package tape_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

// lineDiff returns a unified diff of want (-) against got (+), for a test
// failure's message.
func lineDiff(want, got string) string {
	return "--- want\n+++ got\n" + udiff.Hunks(want, got)
}

// zeroLines returns a copy of t without source positions, for comparing a
// decoded tape with one built in memory.
func zeroLines(t *tape.Tape) *tape.Tape {
	c := t.Clone()
	c.File = ""
	for i := range c.Entries {
		c.Entries[i].Line = 0
	}
	return c
}

func encode(t *testing.T, tp *tape.Tape) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := tape.Encode(&b, tp); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return b.Bytes()
}

func TestCanonicalFilesRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.yaml")
	if len(files) < 2 {
		t.Fatalf("want canonical tapes in testdata, found %v", files)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			tp, err := tape.Load(f)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			got := encode(t, tp)
			if !bytes.Equal(got, want) {
				t.Errorf("Encode(Load(%s)) differs from the file:\n%s", f, lineDiff(string(want), string(got)))
			}
		})
	}
}

func TestDecodeValues(t *testing.T) {
	tp, err := tape.Load("testdata/unicode.yaml")
	if err != nil {
		t.Fatal(err)
	}
	calls := tp.Entries[0].Response.Message.ToolCalls
	for i, want := range []string{
		`{"text": "naïve café", "emoji": "🎉"}`,
		`{"broken": "unterminated`,
		`  {"padded": true}  `,
		"{\n  \"pretty\": \"json\"\n}",
	} {
		if calls[i].Arguments != want {
			t.Errorf("call %d arguments = %q, want %q", i, calls[i].Arguments, want)
		}
	}
	if got, want := tp.Entries[1].Response.Message.Content, "  indented first line\nsecond line"; got != want {
		t.Errorf("content = %q, want %q", got, want)
	}
	msgs := tp.Entries[1].Request.Messages
	if got, want := msgs[1].Content, "line with trailing space \nand a CR\r\n"; got != want {
		t.Errorf("message content = %q, want %q", got, want)
	}
	if got, want := msgs[3].Content, "keeps trailing newlines\n\n\n"; got != want {
		t.Errorf("tool content = %q, want %q", got, want)
	}
	if tp.Entries[0].Line != 3 || tp.Entries[1].Line != 21 || tp.Entries[2].Line != 52 {
		t.Errorf("lines = %d, %d, %d; want 3, 21, 52", tp.Entries[0].Line, tp.Entries[1].Line, tp.Entries[2].Line)
	}
	if r := tp.Entries[0].Response.Message.Role; r != llm.RoleAssistant {
		t.Errorf("response role = %q, want assistant", r)
	}
}

func TestArgumentsMappingBecomesCompactJSON(t *testing.T) {
	src := `format: tapeloop/v1
tape:
  - response:
      tool_calls:
        - id: c1
          name: write_file
          arguments: {path: notes.txt, content: "hello\nworld\n", count: 3, ratio: 0.5, hex: 0x1F, ok: true, none: null, tags: [a, "<b>"], nested: {z: 1, a: 2}}
        - id: c2
          name: list
          arguments: [1, two]
`
	tp, err := tape.Decode(strings.NewReader(src), "m.yaml")
	if err != nil {
		t.Fatal(err)
	}
	calls := tp.Entries[0].Response.Message.ToolCalls
	want := `{"path":"notes.txt","content":"hello\nworld\n","count":3,"ratio":0.5,"hex":31,"ok":true,"none":null,"tags":["a","<b>"],"nested":{"z":1,"a":2}}`
	if calls[0].Arguments != want {
		t.Errorf("arguments = %s\nwant        %s", calls[0].Arguments, want)
	}
	if calls[1].Arguments != `[1,"two"]` {
		t.Errorf("arguments = %s, want [1,\"two\"]", calls[1].Arguments)
	}
	// Re-encoded, arguments are a string scalar.
	if out := string(encode(t, tp)); !strings.Contains(out, `arguments: '{"path":"notes.txt",`) {
		t.Errorf("arguments not written as a single-quoted string:\n%s", out)
	}
}

func TestEncodeEmptyAndNil(t *testing.T) {
	if got, want := string(encode(t, nil)), "format: tapeloop/v1\ntape: []\n"; got != want {
		t.Errorf("Encode(nil) = %q, want %q", got, want)
	}
	tp, err := tape.Decode(strings.NewReader("format: tapeloop/v1\ntape: []\n"), "e.yaml")
	if err != nil || len(tp.Entries) != 0 {
		t.Errorf("Decode(empty tape) = %v, %v", tp, err)
	}
}

func TestEncodeRejectsInvalidEntries(t *testing.T) {
	for _, tc := range []struct {
		entry tape.Entry
		want  string
	}{
		{tape.Entry{}, "tape[0]: none of response, error and user (want exactly one)"},
		{tape.Entry{Response: &llm.Response{}, Error: "x"}, "tape[0]: more than one of response, error and user (want exactly one)"},
		{tape.Entry{User: &llm.Message{Role: llm.RoleUser}, Error: "x"}, "tape[0]: more than one of response, error and user (want exactly one)"},
		{tape.Entry{User: &llm.Message{Role: llm.RoleUser}, Request: &tape.RequestSummary{}}, "tape[0]: a user turn has no request"},
		{tape.Entry{Response: &llm.Response{}, Request: &tape.RequestSummary{LastMessage: &llm.Message{Role: "bot"}}},
			`tape[0].request.last_message.role: invalid role "bot" (want system, user, assistant, tool)`},
	} {
		_, err := tape.EncodeEntries([]tape.Entry{tc.entry})
		if err == nil || err.Error() != tc.want {
			t.Errorf("EncodeEntries(%+v) error = %v, want %q", tc.entry, err, tc.want)
		}
	}
}

// randomString mixes the characters that trouble YAML emitters: quotes,
// indicators, whitespace at the edges, line breaks of every kind, control
// characters, non-ASCII, invalid UTF-8 and words YAML would read as other types.
func randomString(r *rand.Rand) string {
	pieces := []string{
		"a", "Z", "0", "1.5", " ", "  ", "\t", "\n", "\n\n", "\r", "\r\n", "'", "\"", "\\", ":", ": ", "#", " #",
		"-", "- ", "?", "{", "}", "[", "]", ",", "&", "*", "!", "|", ">", "%", "@", "`", "~", "null", "true",
		"yes", "0x1F", "1e3", ".inf", "<<", "---", "...", "é", "世界", "🎉", "\u0085", "\u2028", "\u00a0",
		"\ufeff", "\x00", "\x07", "\x1b", "\x7f", "\xff", "\xc3", "{\"k\": \"v\",}", "=",
	}
	n := r.IntN(12)
	var b strings.Builder
	for range n {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func TestRoundTripRandomStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		s := func() string { return randomString(r) }
		tp := &tape.Tape{Name: s(), Entries: []tape.Entry{
			{Response: &llm.Response{
				Message:      llm.AssistantMessage(s(), llm.ToolCall{ID: s(), Name: s(), Arguments: s()}),
				FinishReason: llm.FinishReason(s()),
			}, Request: &tape.RequestSummary{Tools: []string{s(), s()}, LastMessage: &llm.Message{Role: llm.RoleTool, Content: s(), ToolCallID: s(), Name: s()}}},
			{Error: "e" + s(), Request: &tape.RequestSummary{Messages: []llm.Message{{Role: llm.RoleUser, Content: s()}}}},
		}}
		out := encode(t, tp)
		back, err := tape.Decode(bytes.NewReader(out), "r.yaml")
		if err != nil {
			t.Fatalf("case %d: decoding the encoding of %#v: %v\n%s", i, tp, err, out)
		}
		if got := zeroLines(back); !reflect.DeepEqual(got, normalize(tp)) {
			t.Fatalf("case %d: round trip changed the tape\nencoded:\n%s\ngot  %#v\nwant %#v", i, out, got.Entries, tp.Entries)
		}
		if again := encode(t, back); !bytes.Equal(again, out) {
			t.Fatalf("case %d: second encoding differs:\n%s", i, lineDiff(string(out), string(again)))
		}
	}
}

// normalize returns t as decoding gives it back: assistant role on
// responses, nil for empty tool calls.
func normalize(t *tape.Tape) *tape.Tape {
	c := t.Clone()
	for i := range c.Entries {
		if r := c.Entries[i].Response; r != nil {
			r.Message.Role = llm.RoleAssistant
			if len(r.Message.ToolCalls) == 0 {
				r.Message.ToolCalls = nil
			}
		}
	}
	return c
}

func TestSaveIsAtomicAndLoadable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.yaml")
	tp, err := tape.Load("testdata/canonical.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := tape.Save(path, tp); err != nil {
		t.Fatal(err)
	}
	// A failing save leaves the old file whole and no temp file behind.
	bad := &tape.Tape{Entries: []tape.Entry{{}}}
	if err := tape.Save(path, bad); err == nil {
		t.Fatal("Save(invalid tape) succeeded")
	}
	got, _ := os.ReadFile(path)
	want, _ := os.ReadFile("testdata/canonical.yaml")
	if !bytes.Equal(got, want) {
		t.Errorf("saved file differs from the canonical one:\n%s", lineDiff(string(want), string(got)))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d files, want 1 (temp files left behind?)", len(entries))
	}
	if err := tape.Save(filepath.Join(dir, "missing", "t.yaml"), tp); err == nil {
		t.Error("Save into a missing directory succeeded")
	}
}

// TestCloneIsDeep: a clone of a tape shares nothing its entries and
// verdicts hold: a response, a user turn or a request changed in the clone
// leaves the original as it was.
func TestCloneIsDeep(t *testing.T) {
	tp, err := tape.Load("testdata/conversation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tp.Verdicts = []tape.Verdict{{Rubric: "r", Model: "m", On: "final", Request: &tape.RequestSummary{Messages: []llm.Message{llm.UserMessage("grade")}}}}
	before := string(encode(t, tp))
	c := tp.Clone()
	c.Verdicts[0].Request.Messages[0].Content = "changed"
	users := 0
	for i := range c.Entries {
		e := &c.Entries[i]
		if e.Response != nil {
			e.Response.Message.Content = "changed"
		}
		if e.User != nil {
			e.User.Content = "changed"
			users++
		}
		if e.Request != nil && e.Request.LastMessage != nil {
			e.Request.LastMessage.Content = "changed"
		}
	}
	if users == 0 {
		t.Fatal("testdata/conversation.yaml holds no user turn")
	}
	if after := string(encode(t, tp)); after != before {
		t.Errorf("changing the clone changed the tape:\n%s", lineDiff(before, after))
	}
}

// TestSummarizeNil: a nil request summarises as offering no tools and
// holding no message.
func TestSummarizeNil(t *testing.T) {
	if s := tape.Summarize(nil); s == nil || s.Tools == nil || len(s.Tools) != 0 || s.LastMessage != nil {
		t.Errorf("Summarize(nil) = %+v", s)
	}
}

// TestToolResultErrorRoundTrips: a tool result marked as an error in a
// request's messages keeps the mark through encoding and decoding.
func TestToolResultErrorRoundTrips(t *testing.T) {
	failed := llm.ToolMessage("c1", "read_file", "no such file")
	failed.IsError = true
	tp := &tape.Tape{Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("sorry")},
		Request: &tape.RequestSummary{New: []llm.Message{failed}}}}}
	out := encode(t, tp)
	if !strings.Contains(string(out), "        is_error: true\n") {
		t.Errorf("the mark is not written:\n%s", out)
	}
	back, err := tape.Decode(bytes.NewReader(out), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !back.Entries[0].Request.New[0].IsError {
		t.Errorf("decoded %+v, want is_error kept", back.Entries[0].Request.New[0])
	}
}
