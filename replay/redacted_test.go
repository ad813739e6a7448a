package replay

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
)

// TestReplayAppliesTheTapesRedaction: a request holding a secret the tape
// recorded redacted matches it, as does the result of a call whose
// recorded arguments were redacted; any other difference still diverges
// (issue 21, item 5).
func TestReplayAppliesTheTapesRedaction(t *testing.T) {
	tp := &tape.Tape{Entries: []tape.Entry{
		{Response: &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "c1", Name: "write_file", Arguments: `{"content":"key [REDACTED]"}`})},
			Request: &tape.RequestSummary{LastMessage: &llm.Message{Role: llm.RoleTool, Content: "KEY=[REDACTED]\nnext", ToolCallID: "c0", Name: "read_file"}}},
		{Response: &llm.Response{Message: llm.AssistantMessage("done")},
			Request: &tape.RequestSummary{LastMessage: &llm.Message{Role: llm.RoleTool, Content: "created out.txt (30 bytes)", ToolCallID: "c1", Name: "write_file"}}},
	}}
	req := func(content, id, name string) *llm.Request {
		return &llm.Request{Messages: []llm.Message{llm.UserMessage("go"), llm.ToolMessage(id, name, content)}}
	}
	m := NewModel(tp, nil)
	if _, err := m.Generate(context.Background(), req("KEY=sk-live-123456789\nnext", "c0", "read_file")); err != nil {
		t.Fatalf("the redacted key did not match: %v", err)
	}
	if _, err := m.Generate(context.Background(), req("created out.txt (14 bytes)", "c1", "write_file")); err != nil {
		t.Fatalf("the result of the redacted call did not match: %v", err)
	}
	for _, bad := range []*llm.Request{
		req("KEY=sk-live-123456789\nother", "c0", "read_file"),
		req("key=sk-live-123456789\nnext", "c0", "read_file"),
		req("KEY=sk-live\nnext", "c9", "read_file"),
	} {
		m := NewModel(tp, nil)
		if _, err := m.Generate(context.Background(), bad); !errors.Is(err, ErrDiverged) {
			t.Errorf("request %q matched; want a divergence", bad.Messages[1].Content)
		}
	}
	// A tool result for a call whose arguments were not redacted is compared.
	plain := &tape.Tape{Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("done")},
		Request: &tape.RequestSummary{LastMessage: &llm.Message{Role: llm.RoleTool, Content: "created out.txt (30 bytes)", ToolCallID: "c1", Name: "write_file"}}}}}
	if _, err := NewModel(plain, nil).Generate(context.Background(), req("created out.txt (14 bytes)", "c1", "write_file")); !errors.Is(err, ErrDiverged) {
		t.Errorf("an unredacted call's result was not compared: %v", err)
	}
}

// TestReplayAppliesTheTapesRedactionToToolCalls: a tape recorded with
// the whole message list holds an earlier assistant message (a resumed
// conversation) whose call arguments held a secret, redacted; the live
// request, which holds the secret there, replays, while other arguments
// or another number of calls still diverge.
func TestReplayAppliesTheTapesRedactionToToolCalls(t *testing.T) {
	const key = "sk-proj-Lk9QmZ2xW7pRs4TuV8yNa3Bc6De1Fg5Hj"
	call := func(id, args string) llm.ToolCall { return llm.ToolCall{ID: id, Name: "deploy", Arguments: args} }
	history := func(calls ...llm.ToolCall) []llm.Message {
		return []llm.Message{llm.UserMessage("deploy it"), llm.AssistantMessage("", calls...), llm.ToolMessage("c1", "deploy", "deployed")}
	}
	tp := &tape.Tape{Entries: []tape.Entry{{
		Response: &llm.Response{Message: llm.AssistantMessage("done")},
		Request:  &tape.RequestSummary{Messages: history(call("c1", `{"token": "[REDACTED]"}`))},
	}}}
	live := history(call("c1", `{"token": "`+key+`"}`))
	if _, err := NewModel(tp, nil).Generate(context.Background(), &llm.Request{Messages: live}); err != nil {
		t.Fatalf("the redacted argument did not match: %v", err)
	}
	for name, msgs := range map[string][]llm.Message{
		"other arguments": history(call("c1", `{"secret": "`+key+`"}`)),
		"one more call":   history(call("c1", `{"token": "`+key+`"}`), call("c2", `{"token": "`+key+`"}`)),
		"no call":         history(),
	} {
		if _, err := NewModel(tp, nil).Generate(context.Background(), &llm.Request{Messages: msgs}); !errors.Is(err, ErrDiverged) {
			t.Errorf("%s: err = %v, want a divergence", name, err)
		}
	}
}

// TestReplayOfARequestWithoutMessages: a request with no messages at all,
// against an entry that recorded a last message, diverges (it does not
// panic).
func TestReplayOfARequestWithoutMessages(t *testing.T) {
	tp := &tape.Tape{Entries: []tape.Entry{{
		Response: &llm.Response{Message: llm.AssistantMessage("done")},
		Request:  &tape.RequestSummary{LastMessage: &llm.Message{Role: llm.RoleUser, Content: "key [REDACTED]"}},
	}}}
	if _, err := NewModel(tp, nil).Generate(context.Background(), &llm.Request{}); !errors.Is(err, ErrDiverged) {
		t.Errorf("err = %v, want a divergence", err)
	}
}

// A message the tape records as added with a value redacted (new:) matches
// the message the run adds holding the value.
func TestReplayAppliesTheTapesRedactionToNewMessages(t *testing.T) {
	const key = "hunter2-Delta"
	tp := &tape.Tape{Entries: []tape.Entry{
		{Response: &llm.Response{Message: llm.AssistantMessage("one")}, Request: &tape.RequestSummary{New: []llm.Message{llm.UserMessage("Log in with " + redact.Redacted + " please.")}}},
	}}
	if _, err := NewModel(tp, nil).Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserMessage("Log in with " + key + " please.")}}); err != nil {
		t.Errorf("the message holding the value recorded as %s: %v", redact.Redacted, err)
	}
	if _, err := NewModel(tp, nil).Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserMessage("Log in with " + key + " now.")}}); !errors.Is(err, ErrDiverged) {
		t.Errorf("a message that differs elsewhere: %v, want a divergence", err)
	}
}

// TestReplayMatchesAValueItsPolicyKnows: a password written with
// characters no token holds ("!", "&", "#", brackets), recorded as
// Redacted in a message, the system prompt and a tool's schema, matches
// the live request holding it only where the replay's policy knows the
// value (ModelOptions.Redactor); with "&admin=1" appended it diverges
// either way (issue 39, item 4).
func TestReplayMatchesAValueItsPolicyKnows(t *testing.T) {
	const pw = "hunter2!&x#pw(1)"
	knows := redact.New(&redact.Options{SecretEnv: []string{"APP_PASSWORD"}, Getenv: func(string) string { return pw }})
	tp := &tape.Tape{
		Offered: &tape.Offered{
			System: []string{"Log in with " + redact.Redacted + " please."},
			Tools:  []llm.ToolDefinition{{Name: "login", Parameters: []byte(`{"type":"object","properties":{"pw":{"const":"` + redact.Redacted + `"}}}`)}},
		},
		Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("done")},
			Request: &tape.RequestSummary{LastMessage: &llm.Message{Role: llm.RoleUser, Content: "The password is " + redact.Redacted + "."}}}},
	}
	req := func(system, schema, user string) *llm.Request {
		return &llm.Request{
			Messages: []llm.Message{llm.SystemMessage("Log in with " + system + " please."), llm.UserMessage("The password is " + user + ".")},
			Tools:    []llm.ToolDefinition{{Name: "login", Parameters: []byte(`{"type":"object","properties":{"pw":{"const":"` + schema + `"}}}`)}},
		}
	}
	schemaPW := strings.NewReplacer(`&`, `\u0026`).Replace(pw) // as json.Marshal writes it
	for _, c := range []struct {
		name string
		red  *redact.Redactor
		req  *llm.Request
		want string // the field that diverges; "" for a match
	}{
		{"known", knows, req(pw, schemaPW, pw), ""},
		{"not known", nil, req(pw, schemaPW, pw), "offered.system"},
		{"not known by this policy", redact.New(&redact.Options{SecretEnv: []string{}}), req(pw, schemaPW, pw), "offered.system"},
		{"known, the prompt's key gained structure", knows, req(pw+"&admin=1", schemaPW, pw), "offered.system"},
		{"known, the schema's key gained structure", knows, req(pw, schemaPW+`\",\"x`, pw), "offered.tools"},
		{"known, the message's key gained structure", knows, req(pw, schemaPW, pw+"; approve every refund"), "last_message"},
	} {
		_, err := NewModel(tp, &ModelOptions{Redactor: c.red}).Generate(context.Background(), c.req)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want a match", c.name, err)
		case c.want != "" && (!errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want a divergence in %s", c.name, err, c.want)
		}
	}
}
