package replay

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

var tools = []llm.ToolDefinition{{Name: "write_file"}, {Name: "read_file"}}

func loadCanonical(t *testing.T) *tape.Tape {
	t.Helper()
	tp, err := tape.Load("../tape/testdata/canonical.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// canonicalRequests are the requests that ../tape/testdata/canonical.yaml recorded.
func canonicalRequests() []*llm.Request {
	offered := []llm.ToolDefinition{{Name: "write_file"}, {Name: "read_file"}, {Name: "append_file"}}
	user := llm.UserMessage("Append 'world' to notes.txt and show me the file.")
	call := llm.ToolCall{ID: "call_1", Name: "write_file", Arguments: `{"path": "notes.txt", "content": "hello\nworld\n",}`}
	msgs := []llm.Message{user, llm.AssistantMessage("I'll append it.", call), llm.ToolMessage("call_1", "write_file", "wrote 12 bytes  ")}
	return []*llm.Request{
		{Messages: msgs[:1], Tools: offered},
		{Messages: msgs, Tools: offered},
		{Messages: append(msgs, llm.AssistantMessage("notes.txt now reads:\nhello\nworld\n")), Tools: offered},
	}
}

// TestSharedModelServesTheTapesResponses checks ModelOptions.Shared: the
// responses served are the tape's own, not copies, and the caller's tape is
// otherwise left as it was (NewModel sorts a recorded request's tools in
// its own copy); without it, they are copies the caller may change.
func TestSharedModelServesTheTapesResponses(t *testing.T) {
	ctx := context.Background()
	tp := loadCanonical(t)
	tp.Entries[0].Request.Tools = []string{"write_file", "read_file", "append_file"} // as a hand-written tape may list them
	m := NewModel(tp, &ModelOptions{Shared: true})
	resp, err := m.Generate(ctx, canonicalRequests()[0])
	if err != nil {
		t.Fatal(err)
	}
	if resp != tp.Entries[0].Response {
		t.Errorf("a shared model served a copy of the tape's response")
	}
	if got := tp.Entries[0].Request.Tools; !slices.Equal(got, []string{"write_file", "read_file", "append_file"}) {
		t.Errorf("a shared model changed the caller's tape: the request's tools are %v", got)
	}

	tp = loadCanonical(t)
	m = NewModel(tp, nil)
	resp, err = m.Generate(ctx, canonicalRequests()[0])
	if err != nil {
		t.Fatal(err)
	}
	if resp == tp.Entries[0].Response {
		t.Fatalf("a model served the caller's own response without ModelOptions.Shared")
	}
	resp.Message.ToolCalls[0].Name = "changed"
	if got := tp.Entries[0].Response.Message.ToolCalls[0].Name; got != "write_file" {
		t.Errorf("changing a served response changed the caller's tape: %q", got)
	}
}

func TestModelReplaysInOrder(t *testing.T) {
	m := NewModel(loadCanonical(t), nil)
	ctx := context.Background()
	reqs := canonicalRequests()
	resp, err := m.Generate(ctx, reqs[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Message.ToolCalls[0].Arguments; got != `{"path": "notes.txt", "content": "hello\nworld\n",}` {
		t.Errorf("arguments = %q", got)
	}
	if resp.Usage != (llm.Usage{InputTokens: 120, OutputTokens: 31}) || resp.FinishReason != llm.FinishToolCalls {
		t.Errorf("response = %+v", resp)
	}
	// The caller cannot change the tape through the response.
	resp.Message.ToolCalls[0].Name = "changed"
	resp, err = m.Generate(ctx, reqs[1])
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "notes.txt now reads:\nhello\nworld\n" || resp.FinishReason != llm.FinishStop {
		t.Errorf("response = %+v", resp)
	}
	_, err = m.Generate(ctx, reqs[2])
	want := "replay: tape[2] at ../tape/testdata/canonical.yaml:32: recorded provider error: 429 Too Many Requests: rate limited"
	if !errors.Is(err, ErrRecordedError) || err.Error() != want {
		t.Errorf("turn 3 error:\n got %v\nwant %s", err, want)
	}
	if m.Calls() != 3 || m.Remaining() != 0 {
		t.Errorf("Calls, Remaining = %d, %d; want 3, 0", m.Calls(), m.Remaining())
	}
	_, err = m.Generate(ctx, &llm.Request{Messages: []llm.Message{llm.ToolMessage("call_9", "read_file", "hello\nworld\n")}})
	want = `replay: ../tape/testdata/canonical.yaml: tape exhausted after 3 entries; the unanswered request ends with tool message (read_file call_9) "hello\nworld\n"`
	if !errors.Is(err, ErrTapeExhausted) || err.Error() != want {
		t.Errorf("turn 4 error:\n got %v\nwant %s", err, want)
	}
	if m.Calls() != 4 || m.Remaining() != 0 {
		t.Errorf("Calls, Remaining = %d, %d; want 4, 0", m.Calls(), m.Remaining())
	}
}

// TestLastServedNamesTheEntryUsed: LastServed is -1 before any call, the
// entry each call used (answered or failed as recorded), and -1 again after
// a call the exhausted tape could not serve.
func TestLastServedNamesTheEntryUsed(t *testing.T) {
	m := NewModel(loadCanonical(t), nil)
	if got := m.LastServed(); got != -1 {
		t.Errorf("before any call: LastServed = %d, want -1", got)
	}
	for i, req := range canonicalRequests() {
		m.Generate(context.Background(), req) // the third recorded a provider error
		if got := m.LastServed(); got != i {
			t.Errorf("after call %d: LastServed = %d, want %d", i+1, got, i)
		}
	}
	if _, err := m.Generate(context.Background(), canonicalRequests()[0]); !errors.Is(err, ErrTapeExhausted) {
		t.Fatalf("a fourth call: %v, want the tape exhausted", err)
	}
	if got := m.LastServed(); got != -1 {
		t.Errorf("after the exhausted call: LastServed = %d, want -1", got)
	}
}

func TestModelDoesNotShareTheTape(t *testing.T) {
	tp := loadCanonical(t)
	m := NewModel(tp, nil)
	tp.Entries[0].Response.Message.Content = "changed"
	resp, err := m.Generate(context.Background(), canonicalRequests()[0])
	if err != nil || resp.Message.Content != "I'll append it." {
		t.Errorf("Generate = %+v, %v; want the original content", resp, err)
	}
}

func TestModelDivergesWithDiff(t *testing.T) {
	m := NewModel(loadCanonical(t), nil)
	ctx := context.Background()
	reqs := canonicalRequests()
	if _, err := m.Generate(ctx, reqs[0]); err != nil {
		t.Fatal(err)
	}
	// The loop sent a different tool result and stopped offering append_file.
	req := reqs[1]
	req.Tools = tools
	req.Messages[2].Content = "wrote 13 bytes"
	_, err := m.Generate(ctx, req)
	want := `replay: tape[1] at ../tape/testdata/canonical.yaml:19: request diverged from the recording: tools, last_message differ (- recorded, + actual):
--- recorded
+++ actual
@@ -1,6 +1,6 @@
-tools: [append_file, read_file, write_file]
+tools: [read_file, write_file]
 last_message:
   role: tool
-  content: 'wrote 12 bytes  '
+  content: wrote 13 bytes
   tool_call_id: call_1
   name: write_file`
	if err == nil || err.Error() != want {
		t.Fatalf("error:\n got %v\nwant %s", err, want)
	}
	if !errors.Is(err, ErrDiverged) {
		t.Error("error does not match ErrDiverged")
	}
	var de *DivergenceError
	var me *MismatchError
	if !errors.As(err, &de) || de.Turn != 2 || de.Line != 19 || !errors.As(err, &me) || len(me.Fields) != 2 {
		t.Errorf("error fields: %+v %+v", de, me)
	}
}

// TestDefaultMatcherChecksEveryRecordedKey checks each key a tape's request
// may hold: recorded, it is checked (a differing request fails with a diff
// naming the key); not recorded, it is not.
func TestDefaultMatcherChecksEveryRecordedKey(t *testing.T) {
	sys := llm.SystemMessage("Be terse.")
	q := llm.UserMessage("What is 2+2?\nAnswer in digits.")
	req := &llm.Request{
		Messages: []llm.Message{llm.SystemMessage("Be verbose."), q},
		Tools:    []llm.ToolDefinition{{Name: "calculator"}},
	}
	for _, tc := range []struct {
		key      string
		recorded *tape.RequestSummary
		want     string
	}{
		{"tools", &tape.RequestSummary{Tools: []string{"calculator", "echo"}},
			`replay: tape[0]: request diverged from the recording: tools differs (- recorded, + actual):
--- recorded
+++ actual
@@ -1 +1 @@
-tools: [calculator, echo]
+tools: [calculator]`},
		{"last_message", &tape.RequestSummary{LastMessage: &llm.Message{Role: llm.RoleUser, Content: "What is 3+3?"}},
			`replay: tape[0]: request diverged from the recording: last_message differs (- recorded, + actual):
--- recorded
+++ actual
@@ -1,3 +1,5 @@
 last_message:
   role: user
-  content: What is 3+3?
+  content: |-
+    What is 2+2?
+    Answer in digits.`},
		{"messages", &tape.RequestSummary{Messages: []llm.Message{sys, q}},
			`replay: tape[0]: request diverged from the recording: messages differs (- recorded, + actual):
--- recorded
+++ actual
@@ -1,6 +1,6 @@
 messages:
   - role: system
-    content: Be terse.
+    content: Be verbose.
   - role: user
     content: |-
       What is 2+2?`},
	} {
		t.Run(tc.key, func(t *testing.T) {
			tp := &tape.Tape{Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("4")}, Request: tc.recorded}}}
			_, err := NewModel(tp, nil).Generate(context.Background(), req)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error:\n got %v\nwant %s", err, tc.want)
			}
			// The same request matches a recording of what was sent.
			ok := tape.Summarize(req)
			ok.Messages = req.Messages
			tp.Entries[0].Request = ok
			if _, err := NewModel(tp, nil).Generate(context.Background(), req); err != nil {
				t.Errorf("matching request: %v", err)
			}
		})
	}
}

func TestModelSortsRecordedToolsOnce(t *testing.T) {
	rec := &tape.RequestSummary{Tools: []string{"write_file", "read_file"}}
	tp := &tape.Tape{Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("ok")}, Request: rec}}}
	m := NewModel(tp, nil)
	if got := m.entries[0].Request.Tools; !slices.Equal(got, []string{"read_file", "write_file"}) {
		t.Errorf("the model's recorded tools = %v, want them sorted", got)
	}
	if got := rec.Tools; !slices.Equal(got, []string{"write_file", "read_file"}) {
		t.Errorf("NewModel changed the caller's tape: tools = %v", got)
	}
	req := &llm.Request{Tools: []llm.ToolDefinition{{Name: "write_file"}, {Name: "read_file"}}}
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Errorf("Generate: %v", err)
	}
	// A matcher called directly still compares unsorted tools as a set.
	if err := (DefaultMatcher{}).Match(rec, req); err != nil {
		t.Errorf("DefaultMatcher with unsorted recorded tools: %v", err)
	}
}

func TestMismatchDiffKeepsTrailingSpacesInBlocks(t *testing.T) {
	rec := &tape.RequestSummary{LastMessage: &llm.Message{Role: llm.RoleTool, Content: "line one  \nline two\n"}}
	req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleTool, Content: "line one  \nline 2\n"}}}
	err := (DefaultMatcher{}).Match(rec, req)
	want := "last_message differs (- recorded, + actual):\n" +
		"--- recorded\n+++ actual\n" +
		"@@ -2,4 +2,4 @@\n" +
		"   role: tool\n" +
		"   content: |\n" +
		"     line one  \n" +
		"-    line two\n" +
		"+    line 2"
	if err == nil || err.Error() != want {
		t.Errorf("error:\n got %v\nwant %s", err, want)
	}
}

func TestMatcherFuncAndNoRecordedRequest(t *testing.T) {
	tp := &tape.Tape{File: "t.yaml", Entries: []tape.Entry{
		{Response: &llm.Response{Message: llm.AssistantMessage("a")}, Line: 3},
		{Response: &llm.Response{Message: llm.AssistantMessage("b")}, Request: &tape.RequestSummary{}, Line: 5},
	}}
	never := MatcherFunc(func(*tape.RequestSummary, *llm.Request) error { return errors.New("system prompt changed") })
	m := NewModel(tp, &ModelOptions{Matcher: never})
	if _, err := m.Generate(context.Background(), nil); err != nil {
		t.Errorf("entry without a recorded request was checked: %v", err)
	}
	_, err := m.Generate(context.Background(), &llm.Request{})
	if want := "replay: tape[1] at t.yaml:5: request diverged from the recording: system prompt changed"; err == nil || err.Error() != want {
		t.Errorf("error:\n got %v\nwant %s", err, want)
	}
}

func TestModelCancelledContextUsesNoEntry(t *testing.T) {
	m := NewModel(loadCanonical(t), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Generate(ctx, canonicalRequests()[0]); !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if m.Calls() != 0 || m.Remaining() != 3 {
		t.Errorf("Calls, Remaining = %d, %d; want 0, 3", m.Calls(), m.Remaining())
	}
}

func TestModelNilTapeIsExhausted(t *testing.T) {
	_, err := NewModel(nil, nil).Generate(context.Background(), &llm.Request{})
	if want := "replay: tape exhausted after 0 entries; the unanswered request ends with no message"; err == nil || err.Error() != want {
		t.Errorf("error:\n got %v\nwant %s", err, want)
	}
}

func TestModelConcurrentUse(t *testing.T) {
	tp := &tape.Tape{}
	for range 50 {
		tp.Entries = append(tp.Entries, tape.Entry{Response: &llm.Response{Message: llm.AssistantMessage("x")}})
	}
	m := NewModel(tp, nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures int
	for range 60 {
		wg.Go(func() {
			if _, err := m.Generate(context.Background(), &llm.Request{}); err != nil {
				mu.Lock()
				failures++
				mu.Unlock()
			}
			_ = m.Remaining()
		})
	}
	wg.Wait()
	if failures != 10 || m.Calls() != 60 {
		t.Errorf("failures, calls = %d, %d; want 10, 60", failures, m.Calls())
	}
}

func TestUnifiedDiffHunks(t *testing.T) {
	tests := []struct {
		name string
		a, b []string
		want string
	}{
		{
			name: "9 unchanged lines between changes: two hunks",
			a:    []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"},
			b:    []string{"1", "two", "3", "4", "5", "6", "7", "8", "9", "10", "11"},
			want: `--- recorded
+++ actual
@@ -1,5 +1,5 @@
 1
-2
+two
 3
 4
 5
@@ -9,4 +9,3 @@
 9
 10
 11
-12
`,
		},
		{
			// The two contexts touch: one hunk, as GNU diff -u prints it.
			name: "6 unchanged lines between changes: one hunk",
			a:    []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"},
			b:    []string{"1", "two", "3", "4", "5", "6", "7", "8", "nine", "10"},
			want: `--- recorded
+++ actual
@@ -1,10 +1,10 @@
 1
-2
+two
 3
 4
 5
 6
 7
 8
-9
+nine
 10
`,
		},
		{name: "equal", a: []string{"1", "2"}, b: []string{"1", "2"}, want: ""},
	}
	for _, tt := range tests {
		// Rendered summaries are YAML, whose every line ends in "\n".
		a, b := strings.Join(tt.a, "\n")+"\n", strings.Join(tt.b, "\n")+"\n"
		if got := divergenceDiff(a, b); got != tt.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, got, tt.want)
		}
	}
}

func TestModelServesUserTurns(t *testing.T) {
	tp, err := tape.Load("../tape/testdata/conversation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := NewModel(tp, nil)
	ctx := context.Background()
	req := &llm.Request{Tools: []llm.ToolDefinition{{Name: "book"}}}
	if u, ok := m.NextUser(); !ok || u.Content != "I need to book a flight." || u.Role != llm.RoleUser {
		t.Fatalf("NextUser = %+v, %v", u, ok)
	}
	if _, ok := m.NextUser(); ok {
		t.Fatal("NextUser served a model entry")
	}
	if r, err := m.Generate(ctx, req); err != nil || r.Message.Content != "Where to?" {
		t.Fatalf("Generate = %+v, %v", r, err)
	}
	if u, ok := m.NextUser(); !ok || u.Content != "To Oslo, tomorrow." || u.Name != "mia" {
		t.Fatalf("NextUser = %+v, %v", u, ok)
	}
	for range 2 {
		if _, err := m.Generate(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	want := "tape has 6 entries; the run used 5 (tape[5] at line 19 was never served)"
	if err := m.Unused(); err == nil || err.Error() != want || !errors.Is(err, ErrUnused) {
		t.Fatalf("Unused = %v, want %s", err, want)
	}
	if _, ok := m.NextUser(); !ok {
		t.Fatal("the last user turn was not served")
	}
	if err := m.Unused(); err != nil {
		t.Fatalf("Unused after the whole tape = %v", err)
	}
	if _, ok := m.NextUser(); ok {
		t.Fatal("NextUser past the end")
	}
}

func TestModelRefusesARequestWhereTheUserSpeaks(t *testing.T) {
	tp, err := tape.Load("../tape/testdata/conversation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := NewModel(tp, nil)
	_, err = m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserMessage("Hi")}})
	want := `replay: tape[0] at ../tape/testdata/conversation.yaml:4: request diverged from the recording: the loop asked the model, but tape[0] is a user turn; the user speaks only after a final text answer, and the request ends with user message "Hi"`
	if err == nil || err.Error() != want || !errors.Is(err, ErrDiverged) {
		t.Fatalf("error:\n got %v\nwant %s", err, want)
	}
}

func TestUnusedWithoutLines(t *testing.T) {
	tp := &tape.Tape{Entries: []tape.Entry{{Response: &llm.Response{}}}}
	want := "tape has 1 entry; the run used 0 (tape[0] was never served)"
	if err := NewModel(tp, nil).Unused(); err == nil || err.Error() != want {
		t.Fatalf("Unused = %v, want %s", err, want)
	}
	if err := NewModel(nil, nil).Unused(); err != nil {
		t.Fatalf("Unused of an empty tape = %v", err)
	}
}

// TestMessagesMatcherComparesToolCalls: a recorded request.messages whose
// assistant message asked for other tool calls than the actual request
// diverges, whichever part of a call differs.
func TestMessagesMatcherComparesToolCalls(t *testing.T) {
	q := llm.UserMessage("Weather in Paris?")
	actualCall := llm.ToolCall{ID: "c1", Name: "weather", Arguments: `{"city":"Paris"}`}
	actual := &llm.Request{Messages: []llm.Message{q, llm.AssistantMessage("", actualCall), llm.ToolMessage("c1", "weather", "sunny")}}
	for _, tc := range []struct {
		name  string
		calls []llm.ToolCall
		diff  string // a changed line of the diff must hold it
	}{
		{"arguments", []llm.ToolCall{{ID: "c1", Name: "weather", Arguments: `{"city":"Lyon"}`}}, "Lyon"},
		{"name", []llm.ToolCall{{ID: "c1", Name: "forecast", Arguments: `{"city":"Paris"}`}}, "forecast"},
		{"id", []llm.ToolCall{{ID: "c9", Name: "weather", Arguments: `{"city":"Paris"}`}}, "c9"},
		{"one call more", []llm.ToolCall{actualCall, {ID: "c2", Name: "weather", Arguments: `{"city":"Rome"}`}}, "Rome"},
		{"no calls", nil, "tool_calls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recorded := []llm.Message{q, llm.AssistantMessage("", tc.calls...), llm.ToolMessage("c1", "weather", "sunny")}
			tp := &tape.Tape{Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("done")}, Request: &tape.RequestSummary{Messages: recorded}}}}
			_, err := NewModel(tp, nil).Generate(context.Background(), actual)
			var me *MismatchError
			if !errors.As(err, &me) {
				t.Fatalf("err = %v, want a MismatchError", err)
			}
			if !slices.Equal(me.Fields, []string{"messages"}) {
				t.Errorf("fields %q, want [messages]", me.Fields)
			}
			found := false
			for _, line := range strings.Split(me.Diff, "\n") {
				changed := strings.HasPrefix(line, "-") || strings.HasPrefix(line, "+")
				if changed && !strings.HasPrefix(line, "---") && !strings.HasPrefix(line, "+++") && strings.Contains(line, tc.diff) {
					found = true
				}
			}
			if !found {
				t.Errorf("the diff has no changed line with %q:\n%s", tc.diff, me.Diff)
			}
		})
	}
}

// TestErrorsNameTheTapeEntry: a replay error names the entry it concerns by
// its index, tape[N], and its file:line; not by counting the model calls
// (which a caller's retries and the user turns between them make differ
// from the entry, and which read like the loop's turn numbers).
func TestErrorsNameTheTapeEntry(t *testing.T) {
	ctx := context.Background()
	no := MatcherFunc(func(*tape.RequestSummary, *llm.Request) error { return errors.New("no") })
	tp := &tape.Tape{File: "t.yaml", Entries: []tape.Entry{
		{User: &llm.Message{Role: llm.RoleUser, Content: "hi"}, Line: 3},
		{Error: "boom", Line: 5},
		{Response: &llm.Response{Message: llm.AssistantMessage("a")}, Request: &tape.RequestSummary{}, Line: 7},
	}}
	m := NewModel(tp, &ModelOptions{Matcher: no})
	if _, ok := m.NextUser(); !ok {
		t.Fatal("no user turn")
	}
	var div *DivergenceError
	for _, want := range []string{
		"replay: tape[1] at t.yaml:5: recorded provider error: boom",
		"replay: tape[2] at t.yaml:7: request diverged from the recording: no",
		`replay: t.yaml: tape exhausted after 3 entries; the unanswered request ends with no message`,
	} {
		if _, err := m.Generate(ctx, nil); err == nil || err.Error() != want {
			t.Errorf("error:\n got %v\nwant %s", err, want)
		} else if errors.As(err, &div) && div.Entry != 2 {
			t.Errorf("DivergenceError.Entry = %d, want 2", div.Entry)
		}
	}
	// Without a file, the line; without either, the index alone.
	for _, tc := range []struct {
		tape *tape.Tape
		want string
	}{
		{&tape.Tape{Entries: []tape.Entry{{Error: "boom", Line: 4}}}, "replay: tape[0] at line 4: recorded provider error: boom"},
		{&tape.Tape{Entries: []tape.Entry{{Error: "boom"}}}, "replay: tape[0]: recorded provider error: boom"},
		{&tape.Tape{Entries: []tape.Entry{{Response: &llm.Response{}}}}, "replay: tape exhausted after 1 entry; the unanswered request ends with no message"},
	} {
		m := NewModel(tc.tape, nil)
		_, err := m.Generate(ctx, nil)
		if len(tc.tape.Entries) == 1 && tc.tape.Entries[0].Response != nil {
			_, err = m.Generate(ctx, nil)
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("error:\n got %v\nwant %s", err, tc.want)
		}
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
		tp, err := tape.Decode(strings.NewReader(src), "new.yaml")
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

// An offered block recording only tools is checked: a run offering other
// tools diverges.
func TestModelChecksToolsOnlyOffered(t *testing.T) {
	src := "format: tapeloop/v1\noffered:\n  tools:\n    - name: read_file\n      description: Read a file.\ntape:\n  - response: {content: hi}\n"
	run := func(tools []llm.ToolDefinition) error {
		tp, err := tape.Decode(strings.NewReader(src), "t.yaml")
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

// When the added messages differ and the matcher also refuses the request,
// the divergence names every field: the matcher's fields after new, or a
// custom matcher's own error after them.
func TestDivergenceNamesTheMatchersFieldsToo(t *testing.T) {
	last := llm.UserMessage("Read a.txt.")
	tp := &tape.Tape{File: "t.yaml", Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("a")},
		Request: &tape.RequestSummary{New: []llm.Message{last}, LastMessage: &last}, Line: 3}}}
	req := &llm.Request{Messages: []llm.Message{llm.UserMessage("Read b.txt.")}}
	_, err := NewModel(tp, nil).Generate(context.Background(), req)
	var me *MismatchError
	if !errors.As(err, &me) || !slices.Equal(me.Fields, []string{"new", "last_message"}) || !strings.Contains(err.Error(), "new, last_message differ") {
		t.Errorf("err = %v, want new and last_message named", err)
	}
	custom := MatcherFunc(func(*tape.RequestSummary, *llm.Request) error { return errors.New("the moon is full") })
	_, err = NewModel(tp, &ModelOptions{Matcher: custom}).Generate(context.Background(), req)
	if !errors.As(err, &me) || !slices.Equal(me.Fields, []string{"new"}) || !strings.HasSuffix(err.Error(), "; and the moon is full") {
		t.Errorf("err = %v, want new named and the matcher's error after it", err)
	}
}

// A request without messages against an entry that recorded its whole
// message list diverges, showing the recorded list against an empty one.
func TestRequestWithoutMessagesAgainstARecordedList(t *testing.T) {
	tp := &tape.Tape{Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("a")},
		Request: &tape.RequestSummary{Messages: []llm.Message{llm.UserMessage("hi")}}}}}
	_, err := NewModel(tp, nil).Generate(context.Background(), &llm.Request{})
	if want := "-messages:\n-  - role: user\n-    content: hi\n+messages: []"; !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want a divergence showing %q", err, want)
	}
}

// TestNewMessagesAfterAUserTurn: a request after a user turn is compared
// with what its entry recorded it added since the request before the user
// turn, as a Recorder writes it: the user's message.
func TestNewMessagesAfterAUserTurn(t *testing.T) {
	ask := llm.UserMessage("I need to book a flight.")
	where := llm.AssistantMessage("Where to?")
	oslo := llm.UserMessage("To Oslo, tomorrow.")
	tp := &tape.Tape{Entries: []tape.Entry{
		{Request: &tape.RequestSummary{New: []llm.Message{ask}}, Response: &llm.Response{Message: where}},
		{User: &oslo},
		{Request: &tape.RequestSummary{New: []llm.Message{oslo}}, Response: &llm.Response{Message: llm.AssistantMessage("Booked.")}},
	}}
	for _, tc := range []struct {
		name   string
		said   string
		diverg bool
	}{
		{"as recorded", "To Oslo, tomorrow.", false},
		{"the user said otherwise", "To Bergen.", true},
	} {
		m := NewModel(tp, nil)
		if _, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{ask}}); err != nil {
			t.Fatal(err)
		}
		if _, ok := m.NextUser(); !ok {
			t.Fatal("the user turn was not served")
		}
		_, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{ask, where, llm.UserMessage(tc.said)}})
		switch {
		case !tc.diverg && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.diverg && (!errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "-    content: To Oslo, tomorrow.\n+    content: To Bergen.")):
			t.Errorf("%s: %v; want a divergence showing the new message changed", tc.name, err)
		}
	}
}
