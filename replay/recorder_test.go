package replay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
)

// scriptedModel answers from a fixed list, standing in for a live provider.
func scriptedModel(responses ...*llm.Response) llm.Model {
	n := 0
	return llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		if n == len(responses) {
			return nil, errors.New("script exhausted")
		}
		r := responses[n]
		n++
		return r, nil
	})
}

// runLoop is a tiny agent loop: call the model, append its message and a
// fake tool result per call, until the model makes no calls.
func runLoop(t *testing.T, m llm.Model, first string) ([]*llm.Response, []llm.Message) {
	t.Helper()
	req := &llm.Request{
		Messages: []llm.Message{llm.SystemMessage("You are careful."), llm.UserMessage(first)},
		Tools:    []llm.ToolDefinition{{Name: "write_file"}, {Name: "read_file"}},
	}
	var responses []*llm.Response
	for range 10 {
		resp, err := m.Generate(context.Background(), req)
		if err != nil {
			t.Fatalf("turn %d: %v", len(responses)+1, err)
		}
		responses = append(responses, resp)
		req.Messages = append(req.Messages, resp.Message)
		if len(resp.Message.ToolCalls) == 0 {
			return responses, req.Messages
		}
		for _, c := range resp.Message.ToolCalls {
			req.Messages = append(req.Messages, llm.ToolMessage(c.ID, c.Name, fmt.Sprintf("ran %s with %d bytes of arguments", c.Name, len(c.Arguments))))
		}
	}
	t.Fatal("loop did not finish")
	return nil, nil
}

func script() []*llm.Response {
	return []*llm.Response{
		{Message: llm.AssistantMessage("I'll write it.",
			llm.ToolCall{ID: "call_1", Name: "write_file", Arguments: `{"path": "notes.txt", "content": "hello\n",}`}, // broken JSON, kept as is
			llm.ToolCall{ID: "call_2", Name: "read_file", Arguments: `{"path": "notes.txt"}`}),
			FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 50, OutputTokens: 20}},
		{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_3", Name: "read_file", Arguments: `{path: 'notes.txt'`}),
			FinishReason: llm.FinishToolCalls},
		{Message: llm.AssistantMessage("notes.txt reads:\nhello\n"), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 90, OutputTokens: 9}},
	}
}

func TestRecordThenReplay(t *testing.T) {
	for _, messages := range []bool{false, true} {
		t.Run(fmt.Sprintf("RecordMessages=%v", messages), func(t *testing.T) {
			rec := NewRecorder(scriptedModel(script()...), &RecorderOptions{RecordMessages: messages, Redactor: redact.New(nil)})
			liveResponses, liveMessages := runLoop(t, rec, "Write hello to notes.txt.")

			path := filepath.Join(t.TempDir(), "run.yaml")
			tp := rec.Tape()
			tp.Name = "record-then-replay"
			if err := tape.Save(path, tp); err != nil {
				t.Fatal(err)
			}
			loaded, err := tape.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(loaded.Entries) != 3 || (loaded.Entries[0].Request.Messages != nil) != messages {
				t.Fatalf("tape has %d entries (messages recorded: %v)", len(loaded.Entries), loaded.Entries[0].Request.Messages != nil)
			}
			m := NewModel(loaded, nil)
			replayResponses, replayMessages := runLoop(t, m, "Write hello to notes.txt.")
			if !reflect.DeepEqual(replayResponses, liveResponses) {
				t.Errorf("replayed responses differ:\n got %+v\nwant %+v", replayResponses, liveResponses)
			}
			if !reflect.DeepEqual(replayMessages, liveMessages) {
				t.Errorf("replayed messages differ:\n got %+v\nwant %+v", replayMessages, liveMessages)
			}
			if m.Remaining() != 0 {
				t.Errorf("Remaining = %d, want 0", m.Remaining())
			}
			// What the model saw is the tape's offered block, once.
			if o := loaded.Offered; o == nil || !reflect.DeepEqual(o.System, []string{"You are careful."}) || len(o.Tools) != 2 || o.Tools[0].Name != "write_file" {
				t.Errorf("offered = %+v, want the system prompt and the two tools", o)
			}
			// A changed user message diverges on tape[0], naming the line.
			_, err = NewModel(loaded, nil).Generate(context.Background(), &llm.Request{
				Messages: []llm.Message{llm.SystemMessage("You are careful."), llm.UserMessage("Write bye to notes.txt.")},
				Tools:    []llm.ToolDefinition{{Name: "write_file"}, {Name: "read_file"}},
			})
			if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), fmt.Sprintf("tape[0] at %s:%d", path, loaded.Entries[0].Line)) ||
				!strings.Contains(err.Error(), "-    content: Write hello to notes.txt.\n+    content: Write bye to notes.txt.") {
				t.Errorf("divergence error: %v", err)
			}
		})
	}
}

func TestRecorderRecordsProviderErrors(t *testing.T) {
	failing := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		return nil, errors.New("503 overloaded")
	})
	rec := NewRecorder(failing, nil)
	_, err := rec.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
	if err == nil || err.Error() != "503 overloaded" {
		t.Fatalf("Generate error = %v, want the provider's", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cancelled := llm.ModelFunc(func(ctx context.Context, _ *llm.Request) (*llm.Response, error) { return nil, ctx.Err() })
	// A call that fails because its context is done is returned, not recorded.
	stopped := NewRecorder(cancelled, nil)
	if _, err := stopped.Generate(ctx, &llm.Request{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Generate error = %v, want context.Canceled", err)
	}
	if n := len(stopped.Tape().Entries); n != 0 {
		t.Errorf("a call cancelled by its context was recorded: %d entries, want 0", n)
	}
	tp := rec.Tape()
	if len(tp.Entries) != 1 || tp.Entries[0].Error != "503 overloaded" || tp.Entries[0].Request.New[0].Content != "hi" {
		t.Fatalf("tape = %+v", tp.Entries)
	}
	_, err = NewModel(tp, nil).Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
	if !errors.Is(err, ErrRecordedError) || !strings.HasSuffix(err.Error(), ": recorded provider error: 503 overloaded") {
		t.Errorf("replayed error = %v", err)
	}
}

func TestRecorderRedactsSecrets(t *testing.T) {
	const (
		envKey    = "my-own-provider-key-0123456789"
		openAIKey = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx"
		antKey    = "sk-ant-api03-ZyXwVuTsRqPoNmLk_0987"
		bearerTok = "eyJhbGciOiJIUzI1NiJ9.payload.sig"
		quoted    = `p"ss\word-12345` // appears JSON-escaped inside arguments
		custom    = "internal-hostname.corp"
	)
	env := map[string]string{"OPENAI_API_KEY": envKey, "MY_PASSWORD": quoted, "SHORT": "abc"}
	live := llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		if len(req.Messages) > 3 {
			return nil, errors.New("401: invalid key " + envKey)
		}
		return &llm.Response{Message: llm.AssistantMessage("Using "+antKey+" as asked.",
			llm.ToolCall{ID: "c1", Name: "http", Arguments: `{"headers": {"Authorization": "Bearer ` + bearerTok + `"}, "password": "p\"ss\\word-12345"}`})}, nil
	})
	rec := NewRecorder(live, &RecorderOptions{
		Redactor: redact.New(&redact.Options{
			SecretEnv: []string{"OPENAI_API_KEY", "MY_PASSWORD", "SHORT"},
			Getenv:    func(k string) string { return env[k] },
			Extra:     func(s string) string { return strings.ReplaceAll(s, custom, "[HOST]") },
		}),
		RecordMessages: true,
	})
	msgs := []llm.Message{
		llm.UserMessage("My key is " + envKey + " and my OpenAI key is " + openAIKey + "; host " + custom + "; abc stays."),
	}
	resp, err := rec.Generate(context.Background(), &llm.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.Message.Content, antKey) {
		t.Error("the caller's response was redacted; only the recording should be")
	}
	msgs = append(msgs, resp.Message, llm.ToolMessage("c1", "http", "200 OK; token="+openAIKey+"; Authorization: Bearer "+bearerTok))
	if _, err := rec.Generate(context.Background(), &llm.Request{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	msgs = append(msgs, llm.UserMessage("again"))
	if _, err := rec.Generate(context.Background(), &llm.Request{Messages: msgs}); err == nil {
		t.Fatal("want the provider error")
	}

	path := filepath.Join(t.TempDir(), "secret.yaml")
	if err := tape.Save(path, rec.Tape()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{envKey, openAIKey, antKey, bearerTok, "word-12345", custom, "sk-"} {
		if strings.Contains(string(data), secret) {
			t.Errorf("saved tape holds secret %q:\n%s", secret, data)
		}
	}
	for _, want := range []string{
		"My key is [REDACTED] and my OpenAI key is [REDACTED]; host [HOST]; abc stays.", // user content
		`Using [REDACTED] as asked.`,                                    // response content
		`"Authorization": "Bearer [REDACTED]"`,                          // arguments
		`"password": "[REDACTED]"`,                                      // JSON-escaped env value in arguments
		"200 OK; token=[REDACTED];", "Authorization: Bearer [REDACTED]", // tool result
		"error: '401: invalid key [REDACTED]'", // provider error
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("saved tape lacks %q:\n%s", want, data)
		}
	}
}

func TestRedactorLeavesProse(t *testing.T) {
	r := redact.New(&redact.Options{SecretEnv: []string{}})
	for _, s := range []string{
		"Bearer authentication is described in RFC 6750.",
		"the task-skeleton is ready",
		"ask-me-anything",
	} {
		if got := r.Redact(s); got != s {
			t.Errorf("redact(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestRecordedUsageRoundTrips: every token count of llm.Usage a provider
// reports is written to the tape and read back; counts of zero are left out,
// so tapes without them are written as before.
func TestRecordedUsageRoundTrips(t *testing.T) {
	full := llm.Usage{InputTokens: 120, OutputTokens: 40, CachedInputTokens: 100, CacheWriteTokens: 7, ReasoningTokens: 30}
	rec := NewRecorder(scriptedModel(
		&llm.Response{Message: llm.AssistantMessage("a"), Usage: full},
		&llm.Response{Message: llm.AssistantMessage("b"), Usage: llm.Usage{InputTokens: 5, ReasoningTokens: 2}},
	), nil)
	for range 2 {
		if _, err := rec.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}}); err != nil {
			t.Fatal(err)
		}
	}
	text := encoded(t, rec.Tape())
	for _, want := range []string{
		"usage:\n        input_tokens: 120\n        output_tokens: 40\n        cached_input_tokens: 100\n        cache_write_tokens: 7\n        reasoning_tokens: 30\n",
		"usage:\n        input_tokens: 5\n        reasoning_tokens: 2\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the tape lacks %q:\n%s", want, text)
		}
	}
	back, err := tape.Decode(strings.NewReader(text), "usage.yaml")
	if err != nil {
		t.Fatalf("Decode: %v\n%s", err, text)
	}
	if got := back.Entries[0].Response.Usage; got != full {
		t.Errorf("read back %+v, want %+v", got, full)
	}
	if got, want := back.Entries[1].Response.Usage, (llm.Usage{InputTokens: 5, ReasoningTokens: 2}); got != want {
		t.Errorf("read back %+v, want %+v", got, want)
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

// A request without messages (nil, or one of no messages) reaches the
// wrapped model as an empty request, and is recorded as one that added no
// message (`new: []`), which replays.
func TestRecorderRecordsARequestWithoutMessages(t *testing.T) {
	var got []*llm.Request
	rec := NewRecorder(llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		got = append(got, req)
		if req == nil {
			return nil, errors.New("a nil request")
		}
		return &llm.Response{Message: llm.AssistantMessage(fmt.Sprintf("%d messages", len(req.Messages)))}, nil
	}), nil)
	if _, err := rec.Generate(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] == nil {
		t.Fatalf("the model was sent %v, want one empty request", got)
	}
	text := encoded(t, rec.Tape())
	if !strings.Contains(text, "    request:\n      new: []\n") {
		t.Errorf("the tape does not record a request that added no message:\n%s", text)
	}
	tp, err := tape.Decode(strings.NewReader(text), "empty.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := NewModel(tp, nil).Generate(context.Background(), &llm.Request{}); err != nil || resp.Message.Content != "0 messages" {
		t.Errorf("replaying it: %+v, %v", resp, err)
	}
}

// An assistant message an agent adds after a failed call is recorded as
// sent: the failed call had no answer for it to be taken as sent back, even
// when it repeats the answer before. The tape replays.
func TestRecorderAfterAFailedCallRecordsWhatIsSent(t *testing.T) {
	calls := 0
	rec := NewRecorder(llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		calls++
		if calls == 2 {
			return nil, errors.New("503 overloaded")
		}
		return &llm.Response{Message: llm.AssistantMessage("Working on it.")}, nil
	}), nil)
	first := []llm.Message{llm.UserMessage("Start.")}
	second := append(slices.Clone(first), llm.AssistantMessage("Working on it."), llm.UserMessage("Go on."))
	// After the failure the agent states its last answer again itself.
	third := append(slices.Clone(second), llm.AssistantMessage("Working on it."), llm.UserMessage("Go on, please."))
	for i, msgs := range [][]llm.Message{first, second, third} {
		if _, err := rec.Generate(context.Background(), &llm.Request{Messages: msgs}); (err != nil) != (i == 1) {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	tp := rec.Tape()
	if r := tp.Entries[2].Request; r == nil || len(r.New) != 2 || r.New[0].Role != llm.RoleAssistant {
		t.Errorf("the third request recorded %+v, want new: the assistant message and the user's", r)
	}
	m := NewModel(tp, nil)
	for i, msgs := range [][]llm.Message{first, second, third} {
		if _, err := m.Generate(context.Background(), &llm.Request{Messages: msgs}); (err != nil) != (i == 1) || i == 1 && !errors.Is(err, ErrRecordedError) {
			t.Errorf("replaying call %d: %v", i, err)
		}
	}
}

// A model's answer that leaves its role unset (a fake model, say) is
// recorded as the assistant's, and recognised as such when the agent sends
// it back: the next request records only what it added after it.
func TestRecorderAnswerWithoutARoleIsTheAssistants(t *testing.T) {
	call := llm.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"a.txt"}`}
	rec := NewRecorder(scriptedModel(
		&llm.Response{Message: llm.Message{ToolCalls: []llm.ToolCall{call}}},
		&llm.Response{Message: llm.Message{Content: "done"}},
	), nil)
	msgs := []llm.Message{llm.UserMessage("Read a.txt.")}
	for range 2 {
		resp, err := rec.Generate(context.Background(), &llm.Request{Messages: msgs})
		if err != nil {
			t.Fatal(err)
		}
		back := resp.Message.Clone()
		back.Role = llm.RoleAssistant // as the agent's loop sends it back
		msgs = append(slices.Clone(msgs), back, llm.ToolMessage("c1", "read_file", "hi"))
	}
	tp := rec.Tape()
	if r := tp.Entries[1].Request; r == nil || len(r.New) != 1 || r.New[0].Role != llm.RoleTool {
		t.Errorf("the second request recorded %+v, want new: the tool result alone", r)
	}
	if role := tp.Entries[0].Response.Message.Role; role != llm.RoleAssistant {
		t.Errorf("the answer was recorded with role %q", role)
	}
}
