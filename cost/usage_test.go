package cost_test

import (
	"net/http"
	"testing"

	"github.com/tapeloop/tapeloop/cost"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// Each vendor's answer reports the tokens its cache read in its own field;
// read through the wire format into the tape's usage, they win over the
// estimate. The bodies are written from each vendor's API reference.
func TestRecordedUsageEachVendor(t *testing.T) {
	tests := []struct {
		format               wire.Format
		rules                cost.Rules
		body                 string
		input, cached, write int
	}{
		{
			format: wire.OpenAI, rules: cost.OpenAI,
			body:  `{"id":"chatcmpl-7","object":"chat.completion","created":1,"model":"gpt-4.1","choices":[{"index":0,"message":{"role":"assistant","content":"Filed."},"finish_reason":"stop"}],"usage":{"prompt_tokens":2410,"completion_tokens":9,"total_tokens":2419,"prompt_tokens_details":{"cached_tokens":2304}}}`,
			input: 2410, cached: 2304,
		},
		{
			format: wire.Responses, rules: cost.OpenAI,
			body:  `{"id":"resp_7","object":"response","created_at":1,"status":"completed","model":"gpt-4.1","output":[{"type":"message","id":"msg_7","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Filed.","annotations":[]}]}],"usage":{"input_tokens":2410,"input_tokens_details":{"cached_tokens":2304},"output_tokens":9,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":2419}}`,
			input: 2410, cached: 2304,
		},
		{
			// Anthropic counts input apart from cache reads and writes.
			format: wire.Anthropic, rules: cost.Anthropic,
			body:  `{"id":"msg_7","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Filed."}],"stop_reason":"end_turn","usage":{"input_tokens":35,"cache_creation_input_tokens":410,"cache_read_input_tokens":1990,"output_tokens":9}}`,
			input: 35 + 410 + 1990, cached: 1990, write: 410,
		},
		{
			format: wire.Gemini, rules: cost.Gemini,
			body:  `{"candidates":[{"content":{"role":"model","parts":[{"text":"Filed."}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":2410,"candidatesTokenCount":9,"totalTokenCount":2419,"cachedContentTokenCount":2100},"modelVersion":"gemini-2.5-flash"}`,
			input: 2410, cached: 2100,
		},
		{
			format: wire.Bedrock, rules: cost.Bedrock,
			body:  `{"output":{"message":{"role":"assistant","content":[{"text":"Filed."}]}},"stopReason":"end_turn","usage":{"inputTokens":35,"outputTokens":9,"totalTokens":2444,"cacheReadInputTokens":1990,"cacheWriteInputTokens":410},"metrics":{"latencyMs":420}}`,
			input: 35 + 410 + 1990, cached: 1990, write: 410,
		},
	}
	first := llm.Request{Messages: []llm.Message{llm.SystemMessage("File what the user says."), llm.UserMessage("a receipt")}}
	second := first
	second.Messages = append(append([]llm.Message(nil), first.Messages...), llm.Message{Role: llm.RoleAssistant, Content: "Filed."}, llm.UserMessage("another"))
	for _, tt := range tests {
		t.Run(tt.format.String(), func(t *testing.T) {
			resp, err := wire.DecodeAnswer(&wire.Call{Format: tt.format, Model: "m"}, http.StatusOK, http.Header{"Content-Type": {"application/json"}}, []byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			calls := []cost.Call{{Request: first}, {Request: second, Usage: resp.Usage, Answer: resp.Message}}
			estimated, err := tt.rules.Analyze([]cost.Call{{Request: first}, {Request: second}})
			if err != nil {
				t.Fatal(err)
			}
			run, err := tt.rules.Analyze(calls)
			if err != nil {
				t.Fatal(err)
			}
			s := run.Steps[1]
			if !s.Recorded || !s.InputRecorded || s.SharedTokens != tt.cached || s.InputTokens != tt.input || s.WriteTokens != tt.write || s.OutputTokens != 9 {
				t.Errorf("step %+v: want recorded %d cached and %d written of %d input, 9 output", s, tt.cached, tt.write, tt.input)
			}
			if e := estimated.Steps[1]; e.Recorded || e.SharedTokens == tt.cached {
				t.Errorf("without usage the step is %+v: want an estimate that differs from the recorded %d", e, tt.cached)
			}
			if !run.Estimated() {
				t.Error("the first request has no usage, yet the run says nothing is estimated")
			}
		})
	}
}

// A vendor that reports zero cached tokens has said the cache read
// nothing: the step is recorded as 0, not estimated. One that leaves the
// count out has said nothing, and the step is an estimate. Gemini's usage
// leaves out every count that is zero, so its usage always reports one.
func TestReportedZeroCachedEachVendor(t *testing.T) {
	tests := []struct {
		name     string
		format   wire.Format
		header   string
		body     string
		reported bool
	}{
		{"chat zero", wire.OpenAI, "application/json", `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4.1","choices":[{"index":0,"message":{"role":"assistant","content":"Filed."},"finish_reason":"stop"}],"usage":{"prompt_tokens":2410,"completion_tokens":9,"total_tokens":2419,"prompt_tokens_details":{"cached_tokens":0}}}`, true},
		{"chat none", wire.OpenAI, "application/json", `{"id":"c","object":"chat.completion","created":1,"model":"a-local-model","choices":[{"index":0,"message":{"role":"assistant","content":"Filed."},"finish_reason":"stop"}],"usage":{"prompt_tokens":2410,"completion_tokens":9,"total_tokens":2419}}`, false},
		{"chat stream zero", wire.OpenAI, "text/event-stream", "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4.1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Filed.\"},\"finish_reason\":\"stop\"}]}\n\ndata: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4.1\",\"choices\":[],\"usage\":{\"prompt_tokens\":2410,\"completion_tokens\":9,\"total_tokens\":2419,\"prompt_tokens_details\":{\"cached_tokens\":0}}}\n\ndata: [DONE]\n\n", true},
		{"responses zero", wire.Responses, "application/json", `{"id":"resp_7","object":"response","created_at":1,"status":"completed","model":"gpt-4.1","output":[{"type":"message","id":"msg_7","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Filed.","annotations":[]}]}],"usage":{"input_tokens":2410,"input_tokens_details":{"cached_tokens":0},"output_tokens":9,"total_tokens":2419}}`, true},
		{"responses none", wire.Responses, "application/json", `{"id":"resp_7","object":"response","created_at":1,"status":"completed","model":"gpt-4.1","output":[{"type":"message","id":"msg_7","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Filed.","annotations":[]}]}],"usage":{"input_tokens":2410,"output_tokens":9,"total_tokens":2419}}`, false},
		{"anthropic zero", wire.Anthropic, "application/json", `{"id":"msg_7","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Filed."}],"stop_reason":"end_turn","usage":{"input_tokens":2410,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":9}}`, true},
		{"anthropic none", wire.Anthropic, "application/json", `{"id":"msg_7","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Filed."}],"stop_reason":"end_turn","usage":{"input_tokens":2410,"output_tokens":9}}`, false},
		{"anthropic stream zero", wire.Anthropic, "text/event-stream", "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_7\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":2410,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Filed.\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":9}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", true},
		{"gemini", wire.Gemini, "application/json", `{"candidates":[{"content":{"role":"model","parts":[{"text":"Filed."}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":2410,"candidatesTokenCount":9,"totalTokenCount":2419},"modelVersion":"gemini-2.5-flash"}`, true},
		{"bedrock zero", wire.Bedrock, "application/json", `{"output":{"message":{"role":"assistant","content":[{"text":"Filed."}]}},"stopReason":"end_turn","usage":{"inputTokens":2410,"outputTokens":9,"totalTokens":2419,"cacheReadInputTokens":0,"cacheWriteInputTokens":0},"metrics":{"latencyMs":420}}`, true},
		{"bedrock none", wire.Bedrock, "application/json", `{"output":{"message":{"role":"assistant","content":[{"text":"Filed."}]}},"stopReason":"end_turn","usage":{"inputTokens":2410,"outputTokens":9,"totalTokens":2419},"metrics":{"latencyMs":420}}`, false},
	}
	first := llm.Request{Messages: []llm.Message{llm.SystemMessage("File what the user says."), llm.UserMessage("a receipt")}}
	second := first
	second.Messages = append(append([]llm.Message(nil), first.Messages...), llm.Message{Role: llm.RoleAssistant, Content: "Filed."}, llm.UserMessage("another"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := &wire.Call{Format: tt.format, Model: "m", Stream: tt.header == "text/event-stream", IncludeUsage: true}
			resp, err := wire.DecodeAnswer(call, http.StatusOK, http.Header{"Content-Type": {tt.header}}, []byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Usage.CacheReported != tt.reported {
				t.Errorf("usage %+v: CacheReported %v, want %v", resp.Usage, resp.Usage.CacheReported, tt.reported)
			}
			run, err := cost.Generic.Analyze([]cost.Call{{Request: first}, {Request: second, Usage: resp.Usage}})
			if err != nil {
				t.Fatal(err)
			}
			s := run.Steps[1]
			if s.Recorded != tt.reported || (tt.reported && s.SharedTokens != 0) || (!tt.reported && s.SharedTokens == 0) {
				t.Errorf("step %+v: want recorded %v (0 cached when recorded, an estimate above 0 when not)", s, tt.reported)
			}
		})
	}
}
