package openai_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/internal/wiretest"
)

// conversation is a request with every role, a previous call and its result.
func conversation() *llm.Request {
	prev := llm.AssistantMessage("Let me look.", llm.ToolCall{ID: "call_prev", Name: "list_dir", Arguments: `{"path":"."}`})
	prev.Reasoning = []llm.Reasoning{{Text: "never sent back"}}
	failed := llm.ToolMessage("call_prev", "list_dir", "error: permission denied")
	failed.IsError = true
	return &llm.Request{
		Messages: []llm.Message{
			llm.SystemMessage("You are careful."),
			llm.UserMessage("Read a.txt and bé.txt."),
			prev,
			failed,
		},
		Tools: []llm.ToolDefinition{{
			Name:        "read_file",
			Description: "Read a file.",
			Parameters:  []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		}},
	}
}

func TestParallelCallsStreamedAndNot(t *testing.T) {
	want := &llm.Response{
		Message: llm.Message{Role: llm.RoleAssistant, Content: "Reading both files.", ToolCalls: []llm.ToolCall{
			{ID: "call_Ab12Cd34Ef56Gh78Ij90Kl12", Name: "read_file", Arguments: `{"path": "a.txt"}`},
			// The model's own \u00e9 escape and spacing survive: never parsed.
			{ID: "call_Mn34Op56Qr78St90Uv12Wx34", Name: "read_file", Arguments: `{"path": "b\u00e9.txt" }`},
		}},
		FinishReason: llm.FinishToolCalls,
		Usage:        llm.Usage{InputTokens: 1117, OutputTokens: 46, CachedInputTokens: 1024},
	}
	for _, tc := range []struct {
		name     string
		file     string
		noStream bool
	}{
		{"streamed", "stream-parallel-calls.sse", false},
		{"not streamed", "completion-parallel-calls.json", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := wiretest.New(t, wiretest.Reply{File: tc.file})
			m := w.Open(t, "openai/gpt-4.1-mini", "/v1", func(o *llm.OpenOptions) { o.NoStream = tc.noStream })
			got, err := m.Generate(t.Context(), conversation())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("response\n got %+v\nwant %+v", got, want)
			}
			req := w.Request(1)
			if req.Path != "/v1/chat/completions" || req.Header.Get("Authorization") != "Bearer "+wiretest.APIKey {
				t.Errorf("request to %s with Authorization %q", req.Path, req.Header.Get("Authorization"))
			}
			if stream, _ := req.Body["stream"].(bool); stream == tc.noStream {
				t.Errorf("stream = %v in %s", req.Body["stream"], req.Raw)
			}
			wantMessages := []any{
				map[string]any{"role": "system", "content": "You are careful."},
				map[string]any{"role": "user", "content": "Read a.txt and bé.txt."},
				map[string]any{"role": "assistant", "content": "Let me look.", "tool_calls": []any{
					map[string]any{"id": "call_prev", "type": "function", "function": map[string]any{"name": "list_dir", "arguments": `{"path":"."}`}},
				}},
				map[string]any{"role": "tool", "tool_call_id": "call_prev", "content": "error: permission denied"},
			}
			if !reflect.DeepEqual(req.Body["messages"], wantMessages) {
				t.Errorf("messages sent\n got %v\nwant %v", req.Body["messages"], wantMessages)
			}
			wantTools := []any{map[string]any{"type": "function", "function": map[string]any{
				"name": "read_file", "description": "Read a file.",
				"parameters": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}},
			}}}
			if !reflect.DeepEqual(req.Body["tools"], wantTools) {
				t.Errorf("tools sent\n got %v\nwant %v", req.Body["tools"], wantTools)
			}
			if so, _ := req.Body["stream_options"].(map[string]any); !tc.noStream && so["include_usage"] != true {
				t.Errorf("stream_options = %v, want include_usage", req.Body["stream_options"])
			}
		})
	}
}

func TestRequestOptions(t *testing.T) {
	temp, topP, seed, par := 0.2, 0.9, int64(7), false
	ro := llm.RequestOptions{Temperature: &temp, TopP: &topP, MaxTokens: 300, Seed: &seed, Stop: []string{"END"}, ToolChoice: "read_file", ParallelToolCalls: &par}
	for _, tc := range []struct {
		provider, maxField, otherField string
	}{
		{"openai", "max_completion_tokens", "max_tokens"},
		{"openai-compatible", "max_tokens", "max_completion_tokens"},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			w := wiretest.New(t, wiretest.Reply{File: "stream-text.sse"})
			m := w.Open(t, tc.provider+"/gpt-4.1-mini", "/v1", func(o *llm.OpenOptions) {
				o.Request = ro
				o.Headers = http.Header{"X-Title": {"tapeloop"}}
				o.ExtraBody = map[string]any{"top_k": 20, "chat_template_kwargs": map[string]any{"enable_thinking": false}}
			})
			if _, err := m.Generate(t.Context(), conversation()); err != nil {
				t.Fatal(err)
			}
			req := w.Request(1)
			b := req.Body
			for k, want := range map[string]any{
				"model": "gpt-4.1-mini", "temperature": 0.2, "top_p": 0.9, tc.maxField: 300.0, "seed": 7.0,
				"stop": []any{"END"}, "parallel_tool_calls": false, "top_k": 20.0,
				"tool_choice":          map[string]any{"type": "function", "function": map[string]any{"name": "read_file"}},
				"chat_template_kwargs": map[string]any{"enable_thinking": false},
			} {
				if !reflect.DeepEqual(b[k], want) {
					t.Errorf("%s = %#v, want %#v", k, b[k], want)
				}
			}
			if _, ok := b[tc.otherField]; ok {
				t.Errorf("%s sent beside %s", tc.otherField, tc.maxField)
			}
			if req.Header.Get("X-Title") != "tapeloop" {
				t.Errorf("extra header missing: %v", req.Header)
			}
		})
	}
}

func TestToolChoiceModes(t *testing.T) {
	for _, mode := range []string{"auto", "none", "required"} {
		w := wiretest.New(t, wiretest.Reply{File: "stream-text.sse"})
		m := w.Open(t, "openai/gpt-4.1-mini", "/v1", func(o *llm.OpenOptions) { o.Request.ToolChoice = mode })
		if _, err := m.Generate(t.Context(), conversation()); err != nil {
			t.Fatal(err)
		}
		if got := w.Request(1).Body["tool_choice"]; got != mode {
			t.Errorf("tool_choice = %v, want %q", got, mode)
		}
	}
}

func TestMalformedResponses(t *testing.T) {
	for _, tc := range []struct {
		name string
		rep  wiretest.Reply
		nost bool
		want string
	}{
		{"stream cut off mid-call", wiretest.Reply{File: "stream-cut-mid-call.sse"}, false, "openai: malformed_response: the stream ended without data: [DONE] after 5 chunks"},
		{"stream without [DONE]", wiretest.Reply{File: "stream-no-done.sse"}, false, "openai: malformed_response: the stream ended without data: [DONE] after 5 chunks"},
		{"[DONE] without finish_reason", wiretest.Reply{File: "stream-done-no-finish.sse"}, false, "openai: malformed_response: the stream ended without a finish_reason after 3 chunks"},
		{"empty stream", wiretest.Reply{Body: "", Header: map[string]string{"Content-Type": "text/event-stream"}}, false, "openai: malformed_response: the stream ended without data: [DONE] after 0 chunks"},
		{"no choices", wiretest.Reply{File: "completion-empty-choices.json"}, true, "openai: malformed_response: the response has no choices"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := wiretest.New(t, tc.rep)
			m := w.Open(t, "openai/gpt-4.1-mini", "/v1", func(o *llm.OpenOptions) { o.NoStream = tc.nost })
			resp, err := m.Generate(t.Context(), conversation())
			if resp != nil || !errors.Is(err, llm.ErrMalformed) || err.Error() != tc.want {
				t.Errorf("got %+v, %v\nwant error %q", resp, err, tc.want)
			}
		})
	}
	t.Run("truncated JSON", func(t *testing.T) {
		w := wiretest.New(t, wiretest.Reply{File: "completion-truncated.json"})
		_, err := w.Open(t, "openai/gpt-4.1-mini", "/v1", func(o *llm.OpenOptions) { o.NoStream = true }).Generate(t.Context(), conversation())
		if !errors.Is(err, llm.ErrMalformed) || !llm.Retryable(err) {
			t.Errorf("error %v, want a retryable malformed response", err)
		}
	})
}

func TestErrorStatuses(t *testing.T) {
	wiretest.CheckErrors(t, "openai/gpt-4.1-mini", "/v1", conversation, []wiretest.ErrorCase{
		{Name: "429 with retry-after-ms", Reply: wiretest.Reply{Status: 429, File: "error-429.json", Header: map[string]string{"Retry-After-Ms": "210", "Retry-After": "1"}}, Kind: llm.ErrRateLimited, RetryAfter: 210 * time.Millisecond, Want: "openai: rate_limited (HTTP 429), retry after 210ms: Rate limit reached for gpt-4.1-mini in organization org-abc on tokens per min (TPM): Limit 200000, Used 199500, Requested 1200. Please try again in 210ms. (rate_limit_exceeded)"},
		{Name: "429 with Retry-After", Reply: wiretest.Reply{Status: 429, File: "error-429.json", Header: map[string]string{"Retry-After": "20"}}, Kind: llm.ErrRateLimited, RetryAfter: 20 * time.Second},
		{Name: "400 context too long", Reply: wiretest.Reply{Status: 400, File: "error-400-context.json"}, Kind: llm.ErrContextTooLong, Want: "openai: context_too_long (HTTP 400): This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages. (context_length_exceeded)"},
		{Name: "400 vLLM context too long", Reply: wiretest.Reply{Status: 400, File: "error-400-vllm.json"}, Kind: llm.ErrContextTooLong},
		{Name: "400", Reply: wiretest.Reply{Status: 400, File: "error-400.json"}, Kind: llm.ErrBadRequest, Want: "openai: bad_request (HTTP 400): Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."},
		{Name: "401", Reply: wiretest.Reply{Status: 401, File: "error-401.json"}, Kind: llm.ErrAuth},
		{Name: "404 Ollama", Reply: wiretest.Reply{Status: 404, File: "error-404-ollama.json"}, Kind: llm.ErrBadRequest, Want: `openai: bad_request (HTTP 404): model "qwen3:8b" not found, try pulling it first`},
		{Name: "502 HTML", Reply: wiretest.Reply{Status: 502, File: "error-502.html"}, Kind: llm.ErrOverloaded},
		{Name: "503", Reply: wiretest.Reply{Status: 503, File: "error-503.json"}, Kind: llm.ErrOverloaded, Want: "openai: overloaded (HTTP 503): The engine is currently overloaded, please try again later"},
	})
}

func TestErrorEventInStream(t *testing.T) {
	w := wiretest.New(t, wiretest.Reply{File: "stream-error-event.sse"})
	_, err := w.Open(t, "openai/gpt-4.1-mini", "/v1", nil).Generate(t.Context(), conversation())
	want := "openai: overloaded: error event in the stream: The server had an error while processing your request. Sorry about that!"
	if !errors.Is(err, llm.ErrOverloaded) || err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

func TestCancelledAndTimedOut(t *testing.T) {
	flushed := make(chan struct{})
	srv := wiretest.New(t)
	srv.Config.Handler = http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/event-stream")
		_, _ = rw.Write([]byte(`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}` + "\n\n"))
		rw.(http.Flusher).Flush()
		close(flushed)
		<-r.Context().Done()
	})
	m := srv.Open(t, "openai/gpt-4.1-mini", "/v1", nil)
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-flushed; cancel() }()
	_, err := m.Generate(ctx, conversation())
	if !errors.Is(err, llm.ErrCancelled) || !errors.Is(err, context.Canceled) || llm.Retryable(err) {
		t.Errorf("cancelled: %v", err)
	}

	dctx, dcancel := context.WithDeadline(t.Context(), time.Unix(1, 0))
	defer dcancel()
	_, err = m.Generate(dctx, conversation())
	if !errors.Is(err, llm.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline: %v", err)
	}
}

// TestUnreachableServer: a refused connection is unreachable, named with
// the URL, not overloaded.
func TestUnreachableServer(t *testing.T) {
	wiretest.CheckUnreachable(t, "openai/gpt-4.1-mini", "/v1", conversation)
}
