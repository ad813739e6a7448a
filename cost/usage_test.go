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
