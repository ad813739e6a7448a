package anthropic_test

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

const signature = "EqQBCkYIBxgCKkB3mZ0pQ7sT1vW9xY2aB4cD6eF8gH0iJ2kL4mN6oP8qR0sT2uV4wX6yZ8aB0cD2eF4gH0iJ=="

// conversation has a system prompt, a previous turn with signed thinking and
// two calls, and their results, one failed.
func conversation() *llm.Request {
	prev := llm.AssistantMessage("Listing first.",
		llm.ToolCall{ID: "toolu_prev1", Name: "list_dir", Arguments: `{"path": "."}`},
		llm.ToolCall{ID: "toolu_prev2", Name: "list_dir", Arguments: `{"path": "sub"`})
	prev.Reasoning = []llm.Reasoning{{Text: "Look around first.", Signature: "sig-prev"}, {Redacted: "opaque"}}
	failed := llm.ToolMessage("toolu_prev2", "list_dir", "error: no such directory")
	failed.IsError = true
	return &llm.Request{
		Messages: []llm.Message{
			llm.SystemMessage("You are careful."),
			llm.UserMessage("Read a.txt and bé.txt."),
			prev,
			llm.ToolMessage("toolu_prev1", "list_dir", "a.txt\nbé.txt"),
			failed,
		},
		Tools: []llm.ToolDefinition{{
			Name:        "read_file",
			Description: "Read a file.",
			Parameters:  []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`),
		}},
	}
}

func TestParallelToolsStreamedAndNot(t *testing.T) {
	want := &llm.Response{
		Message: llm.Message{Role: llm.RoleAssistant, Content: "Reading both files.",
			ToolCalls: []llm.ToolCall{
				{ID: "toolu_01A09q90qw90lq917835lq9", Name: "read_file", Arguments: `{"path": "a.txt"}`},
				{ID: "toolu_01B7dE2fG4hJ6kL8mN0pQ2rS", Name: "read_file", Arguments: `{"path": "b\u00e9.txt" }`},
			},
			Reasoning: []llm.Reasoning{{Text: "Both files are needed; read them together.", Signature: signature}},
		},
		FinishReason: llm.FinishToolCalls,
		Usage:        llm.Usage{InputTokens: 412 + 1200 + 2048, OutputTokens: 141, CachedInputTokens: 2048, CacheWriteTokens: 1200},
	}
	for _, tc := range []struct {
		name     string
		file     string
		noStream bool
	}{
		{"streamed", "stream-parallel-tools.sse", false},
		{"not streamed", "message-parallel-tools.json", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := wiretest.New(t, wiretest.Reply{File: tc.file})
			got, err := w.Open(t, "anthropic/claude-sonnet-4-5", "", func(o *llm.OpenOptions) { o.NoStream = tc.noStream }).Generate(t.Context(), conversation())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("response\n got %+v\nwant %+v", got, want)
			}
			req := w.Request(1)
			if req.Path != "/v1/messages" || req.Header.Get("X-Api-Key") != wiretest.APIKey || req.Header.Get("Anthropic-Version") == "" {
				t.Errorf("request to %s with key %q, version %q", req.Path, req.Header.Get("X-Api-Key"), req.Header.Get("Anthropic-Version"))
			}
			if stream, _ := req.Body["stream"].(bool); stream == tc.noStream {
				t.Errorf("stream = %v", req.Body["stream"])
			}
			b := req.Body
			if b["model"] != "claude-sonnet-4-5" || b["max_tokens"] != 4096.0 {
				t.Errorf("model %v, max_tokens %v", b["model"], b["max_tokens"])
			}
			if want := []any{map[string]any{"type": "text", "text": "You are careful."}}; !reflect.DeepEqual(b["system"], want) {
				t.Errorf("system = %v", b["system"])
			}
			wantMessages := []any{
				map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Read a.txt and bé.txt."}}},
				map[string]any{"role": "assistant", "content": []any{
					map[string]any{"type": "thinking", "thinking": "Look around first.", "signature": "sig-prev"},
					map[string]any{"type": "redacted_thinking", "data": "opaque"},
					map[string]any{"type": "text", "text": "Listing first."},
					map[string]any{"type": "tool_use", "id": "toolu_prev1", "name": "list_dir", "input": map[string]any{"path": "."}},
					// Broken arguments cannot go back as they were: the API takes an object.
					map[string]any{"type": "tool_use", "id": "toolu_prev2", "name": "list_dir", "input": map[string]any{}},
				}},
				map[string]any{"role": "user", "content": []any{
					map[string]any{"type": "tool_result", "tool_use_id": "toolu_prev1", "content": []any{map[string]any{"type": "text", "text": "a.txt\nbé.txt"}}, "is_error": false},
					map[string]any{"type": "tool_result", "tool_use_id": "toolu_prev2", "is_error": true, "content": []any{map[string]any{"type": "text", "text": "error: no such directory"}}},
				}},
			}
			if !reflect.DeepEqual(b["messages"], wantMessages) {
				t.Errorf("messages\n got %v\nwant %v", b["messages"], wantMessages)
			}
			wantTools := []any{map[string]any{"name": "read_file", "description": "Read a file.", "input_schema": map[string]any{
				"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}, "additionalProperties": false}}}
			if !reflect.DeepEqual(b["tools"], wantTools) {
				t.Errorf("tools\n got %v\nwant %v", b["tools"], wantTools)
			}
		})
	}
}

func TestStreamEdgeCases(t *testing.T) {
	t.Run("broken input kept byte for byte", func(t *testing.T) {
		w := wiretest.New(t, wiretest.Reply{File: "stream-broken-input.sse"})
		got, err := w.Open(t, "anthropic/claude-sonnet-4-5", "", nil).Generate(t.Context(), conversation())
		if err != nil {
			t.Fatal(err)
		}
		want := []llm.ToolCall{{ID: "toolu_01Mq5Rs7Tu9Vw1Xy3Za5Bc7D", Name: "write_file", Arguments: `{"path": "a.txt", 'content': 'hi'`}}
		if !reflect.DeepEqual(got.Message.ToolCalls, want) || got.FinishReason != llm.FinishLength {
			t.Errorf("calls %+v, finish %q; want %+v, length", got.Message.ToolCalls, got.FinishReason, want)
		}
	})
	t.Run("tool without arguments", func(t *testing.T) {
		w := wiretest.New(t, wiretest.Reply{File: "stream-tool-no-args.sse"})
		got, err := w.Open(t, "anthropic/claude-sonnet-4-5", "", nil).Generate(t.Context(), conversation())
		if err != nil {
			t.Fatal(err)
		}
		if want := []llm.ToolCall{{ID: "toolu_01Qq3Ss5Uu7Ww9Yy1Aa3Cc5E", Name: "list_dir", Arguments: `{}`}}; !reflect.DeepEqual(got.Message.ToolCalls, want) {
			t.Errorf("calls %+v, want %+v", got.Message.ToolCalls, want)
		}
	})
	t.Run("cut off mid-call", func(t *testing.T) {
		w := wiretest.New(t, wiretest.Reply{File: "stream-cut-mid-call.sse"})
		resp, err := w.Open(t, "anthropic/claude-sonnet-4-5", "", nil).Generate(t.Context(), conversation())
		want := "anthropic: malformed_response: the stream ended without message_stop after 17 events"
		if resp != nil || !errors.Is(err, llm.ErrMalformed) || err.Error() != want {
			t.Errorf("got %v, %v; want %q", resp, err, want)
		}
	})
	t.Run("overloaded_error event after a 200", func(t *testing.T) {
		w := wiretest.New(t, wiretest.Reply{File: "stream-overloaded.sse"})
		_, err := w.Open(t, "anthropic/claude-sonnet-4-5", "", nil).Generate(t.Context(), conversation())
		want := "anthropic: overloaded: error event in the stream: overloaded_error: Overloaded"
		if !errors.Is(err, llm.ErrOverloaded) || !llm.Retryable(err) || err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
	})
}

func TestStopReasons(t *testing.T) {
	for _, tc := range []struct {
		file string
		want llm.FinishReason
	}{
		{"message-end_turn.json", llm.FinishStop},
		{"message-max_tokens.json", llm.FinishLength},
		{"message-refusal.json", llm.FinishFiltered},
		{"message-pause_turn.json", llm.FinishPause},
	} {
		w := wiretest.New(t, wiretest.Reply{File: tc.file})
		got, err := w.Open(t, "anthropic/claude-sonnet-4-5", "", func(o *llm.OpenOptions) { o.NoStream = true }).Generate(t.Context(), conversation())
		if err != nil || got.FinishReason != tc.want {
			t.Errorf("%s: finish %v (%v), want %q", tc.file, got, err, tc.want)
		}
	}
	w := wiretest.New(t, wiretest.Reply{File: "message-redacted-thinking.json"})
	got, err := w.Open(t, "anthropic/claude-sonnet-4-5", "", func(o *llm.OpenOptions) { o.NoStream = true }).Generate(t.Context(), conversation())
	want := &llm.Response{
		Message:      llm.Message{Role: llm.RoleAssistant, Content: "Done.", Reasoning: []llm.Reasoning{{Redacted: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"}}},
		FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 30, OutputTokens: 8, ReasoningTokens: 5, CacheReported: true},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("redacted thinking: %+v (%v)\nwant %+v", got, err, want)
	}
}

func TestRequestOptions(t *testing.T) {
	temp, topP, par := 0.3, 0.8, false
	w := wiretest.New(t, wiretest.Reply{File: "stream-tool-no-args.sse"})
	m := w.Open(t, "anthropic/claude-sonnet-4-5", "", func(o *llm.OpenOptions) {
		o.Request = llm.RequestOptions{Temperature: &temp, TopP: &topP, MaxTokens: 900, Stop: []string{"END"}, ToolChoice: "read_file", ParallelToolCalls: &par}
		o.Headers = http.Header{"Anthropic-Beta": {"interleaved-thinking-2025-05-14"}}
		o.ExtraBody = map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": 2000}}
	})
	if _, err := m.Generate(t.Context(), conversation()); err != nil {
		t.Fatal(err)
	}
	req := w.Request(1)
	for k, want := range map[string]any{
		"temperature": 0.3, "top_p": 0.8, "max_tokens": 900.0, "stop_sequences": []any{"END"},
		"tool_choice": map[string]any{"type": "tool", "name": "read_file", "disable_parallel_tool_use": true},
		"thinking":    map[string]any{"type": "enabled", "budget_tokens": 2000.0},
	} {
		if !reflect.DeepEqual(req.Body[k], want) {
			t.Errorf("%s = %#v, want %#v", k, req.Body[k], want)
		}
	}
	if req.Header.Get("Anthropic-Beta") != "interleaved-thinking-2025-05-14" {
		t.Errorf("extra header missing: %v", req.Header)
	}
	for mode, want := range map[string]any{
		"auto": map[string]any{"type": "auto"}, "none": map[string]any{"type": "none"}, "required": map[string]any{"type": "any"},
	} {
		w := wiretest.New(t, wiretest.Reply{File: "stream-tool-no-args.sse"})
		if _, err := w.Open(t, "anthropic/claude-sonnet-4-5", "", func(o *llm.OpenOptions) { o.Request.ToolChoice = mode }).Generate(t.Context(), conversation()); err != nil {
			t.Fatal(err)
		}
		if got := w.Request(1).Body["tool_choice"]; !reflect.DeepEqual(got, want) {
			t.Errorf("tool_choice %s = %v, want %v", mode, got, want)
		}
	}
}

func TestErrorStatuses(t *testing.T) {
	wiretest.CheckErrors(t, "anthropic/claude-sonnet-4-5", "", conversation, []wiretest.ErrorCase{
		{Name: "429", Reply: wiretest.Reply{Status: 429, File: "error-429.json", Header: map[string]string{"Retry-After": "17"}}, Kind: llm.ErrRateLimited, RetryAfter: 17 * time.Second, Want: "anthropic: rate_limited (HTTP 429), retry after 17s: This request would exceed the rate limit for your organization (b1c2d3e4-0000-4000-8000-abcdefabcdef) of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits."},
		{Name: "529", Reply: wiretest.Reply{Status: 529, File: "error-529.json"}, Kind: llm.ErrOverloaded, Want: "anthropic: overloaded (HTTP 529): Overloaded"},
		{Name: "500", Reply: wiretest.Reply{Status: 500, File: "error-500.json"}, Kind: llm.ErrOverloaded},
		{Name: "400 prompt too long", Reply: wiretest.Reply{Status: 400, File: "error-400-context.json"}, Kind: llm.ErrContextTooLong, Want: "anthropic: context_too_long (HTTP 400): prompt is too long: 210417 tokens > 200000 maximum"},
		{Name: "400", Reply: wiretest.Reply{Status: 400, File: "error-400.json"}, Kind: llm.ErrBadRequest},
		{Name: "401", Reply: wiretest.Reply{Status: 401, File: "error-401.json"}, Kind: llm.ErrAuth, Want: "anthropic: auth (HTTP 401): invalid x-api-key"},
	})
}

func TestMissingKeyAndCancel(t *testing.T) {
	_, err := llm.Open(t.Context(), "anthropic/claude-sonnet-4-5", &llm.OpenOptions{Getenv: func(string) string { return "" }})
	if want := "opening model anthropic/claude-sonnet-4-5: missing API key: set ANTHROPIC_API_KEY or pass a key"; err == nil || err.Error() != want {
		t.Errorf("missing key: %v\nwant %s", err, want)
	}
	w := wiretest.New(t, wiretest.Reply{File: "stream-tool-no-args.sse"})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = w.Open(t, "anthropic/claude-sonnet-4-5", "", nil).Generate(ctx, conversation())
	if !errors.Is(err, llm.ErrCancelled) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestUnreachableServer: a refused connection is unreachable, named with
// the URL, not overloaded.
func TestUnreachableServer(t *testing.T) {
	wiretest.CheckUnreachable(t, "anthropic/claude-sonnet-4-5", "", conversation)
}
