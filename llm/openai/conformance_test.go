package openai_test

import (
	"reflect"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/internal/wiretest"
)

// TestConformance has one case per row of the dialect table in the package
// documentation.
func TestConformance(t *testing.T) {
	weather := func(id, args string) []llm.ToolCall {
		return []llm.ToolCall{{ID: id, Name: "weather", Arguments: args}}
	}
	for _, tc := range []struct {
		row      string
		file     string
		noStream bool
		want     llm.Response
	}{
		{"openai keep-alive comments, obfuscation, usage-only last chunk", "stream-parallel-calls.sse", false, llm.Response{
			Message: llm.Message{Role: llm.RoleAssistant, Content: "Reading both files.", ToolCalls: []llm.ToolCall{
				{ID: "call_Ab12Cd34Ef56Gh78Ij90Kl12", Name: "read_file", Arguments: `{"path": "a.txt"}`},
				{ID: "call_Mn34Op56Qr78St90Uv12Wx34", Name: "read_file", Arguments: `{"path": "b\u00e9.txt" }`},
			}},
			FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 1117, OutputTokens: 46, CachedInputTokens: 1024}}},
		{"deepseek reasoning_content streamed", "deepseek-reasoning.sse", false, llm.Response{
			Message:      llm.Message{Role: llm.RoleAssistant, ToolCalls: weather("call_00_Lc4gUNZpQ0xj6Zk7oBPoLo3V", `{"location":"Berlin"}`), Reasoning: []llm.Reasoning{{Text: "The user wants the weather."}}},
			FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 339, OutputTokens: 83, CachedInputTokens: 320, ReasoningTokens: 39}}},
		{"deepseek reasoning_content in the message", "deepseek-reasoning.json", true, llm.Response{
			Message:      llm.Message{Role: llm.RoleAssistant, ToolCalls: weather("call_00_Lc4gUNZpQ0xj6Zk7oBPoLo3V", `{"location":"Berlin"}`), Reasoning: []llm.Reasoning{{Text: "The user wants the weather in Berlin."}}},
			FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 339, OutputTokens: 83, CachedInputTokens: 320, ReasoningTokens: 39}}},
		{"mistral id and empty content on every chunk", "mistral-ids-on-chunks.sse", false, llm.Response{
			Message:      llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "chatcmpl-tool-9f149c74c42f265b", Name: "webSearchTool", Arguments: `{"query": "current Berlin weather"}`}}},
			FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 171, OutputTokens: 14, CachedInputTokens: 128}}},
		{"alibaba empty ids on later deltas", "alibaba-empty-ids.sse", false, llm.Response{
			Message:      llm.Message{Role: llm.RoleAssistant, ToolCalls: weather("call_eee11723464a4b9eb8cee71d", `{"location": "San Francisco"}`)},
			FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 295, OutputTokens: 22, CacheReported: true}}},
		{"groq whole arguments in one delta", "groq-whole-arguments.sse", false, llm.Response{
			Message:      llm.Message{Role: llm.RoleAssistant, ToolCalls: weather("tk85n1k4m", `{"location":"Paris"}`)},
			FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 210, OutputTokens: 15}}},
		{"vllm running usage totals", "vllm-running-usage.sse", false, llm.Response{
			Message:      llm.Message{Role: llm.RoleAssistant, Content: "Done."},
			FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 57, OutputTokens: 2}}},
		{"ollama arguments as an object", "arguments-object.json", true, llm.Response{
			Message:      llm.Message{Role: llm.RoleAssistant, ToolCalls: weather("call_q2k8v1xz", `{"location":"Oslo","unit":"c"}`)},
			FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 150, OutputTokens: 21}}},
		{"anthropic compat call indices from 1", "anthropic-compat-index.sse", false, llm.Response{
			Message:      llm.Message{Role: llm.RoleAssistant, Content: "Reading it.", ToolCalls: []llm.ToolCall{{ID: "toolu_01Xk3bQ9dV2rLm8nPq4sT7wZ", Name: "read_file", Arguments: `{"path": "a.txt"}`}}},
			FinishReason: llm.FinishToolCalls}},
		{"openai refusal", "completion-refusal.json", true, llm.Response{
			Message:      llm.Message{Role: llm.RoleAssistant, Content: "I'm sorry, I can't help with that."},
			FinishReason: llm.FinishFiltered, Usage: llm.Usage{InputTokens: 25, OutputTokens: 10}}},
		{"openai length with reasoning tokens", "completion-length.json", true, llm.Response{
			Message:      llm.Message{Role: llm.RoleAssistant, Content: "The first three steps are"},
			FinishReason: llm.FinishLength, Usage: llm.Usage{InputTokens: 40, OutputTokens: 64, ReasoningTokens: 58, CacheReported: true}}},
	} {
		t.Run(tc.row, func(t *testing.T) {
			w := wiretest.New(t, wiretest.Reply{File: tc.file})
			got, err := w.Open(t, "openai-compatible/gpt-4.1-mini", "/v1", func(o *llm.OpenOptions) { o.NoStream = tc.noStream }).Generate(t.Context(), conversation())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("response\n got %+v\nwant %+v", *got, tc.want)
			}
		})
	}
	t.Run("keyless local servers send no Authorization", func(t *testing.T) {
		for _, p := range []string{"ollama", "vllm", "llamacpp", "openai-compatible"} {
			w := wiretest.New(t, wiretest.Reply{File: "stream-text.sse"})
			if _, err := w.Open(t, p+"/gpt-4.1-mini", "/v1", func(o *llm.OpenOptions) { o.APIKey = "" }).Generate(t.Context(), conversation()); err != nil {
				t.Fatal(err)
			}
			if h := w.Request(1).Header; h.Get("Authorization") != "" {
				t.Errorf("%s sent Authorization %q", p, h.Get("Authorization"))
			}
		}
	})
	t.Run("reasoning is never sent back", func(t *testing.T) {
		w := wiretest.New(t, wiretest.Reply{File: "stream-text.sse"})
		if _, err := w.Open(t, "openai-compatible/gpt-4.1-mini", "/v1", nil).Generate(t.Context(), conversation()); err != nil {
			t.Fatal(err)
		}
		msgs := w.Request(1).Body["messages"].([]any)
		if a := msgs[2].(map[string]any); len(a) != 3 || a["reasoning_content"] != nil {
			t.Errorf("assistant message sent as %v", a)
		}
	})
}
