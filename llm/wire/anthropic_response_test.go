package wire_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// TestAnthropicStreamToolUseStartsEmpty: in a Messages stream a tool_use
// block's content_block_start carries input {} as the API sends it, the
// arguments following whole in input_json_delta events; clients append the
// deltas to the start's input, so arguments there would be sent twice.
func TestAnthropicStreamToolUseStartsEmpty(t *testing.T) {
	resp := &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "toolu_1", Name: "read_file", Arguments: `{"path":"a.txt"}`}),
		FinishReason: llm.FinishToolCalls}
	rec := httptest.NewRecorder()
	wire.WriteResponse(rec, answerCall(t, wire.Anthropic, true), resp, nil)
	starts, partial := 0, ""
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var e struct {
			Type         string `json:"type"`
			ContentBlock *struct {
				Type  string          `json:"type"`
				Input json.RawMessage `json:"input"`
			} `json:"content_block"`
			Delta *struct {
				Type        string `json:"type"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatalf("event %s: %v", data, err)
		}
		if e.Type == "content_block_start" && e.ContentBlock != nil && e.ContentBlock.Type == "tool_use" {
			starts++
			if string(e.ContentBlock.Input) != `{}` {
				t.Errorf("content_block_start input %s, want {}", e.ContentBlock.Input)
			}
		}
		if e.Type == "content_block_delta" && e.Delta != nil && e.Delta.Type == "input_json_delta" {
			partial += e.Delta.PartialJSON
		}
	}
	if starts != 1 || partial != `{"path":"a.txt"}` {
		t.Errorf("%d tool_use starts, deltas %q; want 1 and the arguments whole\n%s", starts, partial, rec.Body)
	}
}

// TestAnthropicStopReasonUnset: a response whose finish reason is unset is
// sent with the stop reason the API would give it: tool_use when it calls
// tools, end_turn when it does not; whole and streamed alike.
func TestAnthropicStopReasonUnset(t *testing.T) {
	for want, msg := range map[string]llm.Message{
		"end_turn": llm.AssistantMessage("Done."),
		"tool_use": llm.AssistantMessage("", llm.ToolCall{ID: "toolu_1", Name: "read_file", Arguments: `{"path":"a.txt"}`}),
	} {
		for _, stream := range []bool{false, true} {
			_, body := wire.EncodeResponse(answerCall(t, wire.Anthropic, stream), &llm.Response{Message: msg}, nil)
			if got := strings.Count(string(body), `"stop_reason":"`+want+`"`); got != 1 {
				t.Errorf("stream=%v: %d stop reasons %s, want one\n%s", stream, got, want, body)
			}
		}
	}
}

// TestAnthropicUsageThinkingTokens: an answer's usage carries
// output_tokens_details (its thinking_tokens) only when the response counted
// reasoning tokens; a response that counted none sends no such object.
func TestAnthropicUsageThinkingTokens(t *testing.T) {
	for reasoning, want := range map[int]int{0: 0, 18: 1} {
		resp := &llm.Response{Message: llm.AssistantMessage("42."), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 9, OutputTokens: 20, ReasoningTokens: reasoning}}
		_, body := wire.EncodeResponse(answerCall(t, wire.Anthropic, false), resp, nil)
		if got := strings.Count(string(body), `"output_tokens_details"`); got != want {
			t.Errorf("%d reasoning tokens: %d output_tokens_details, want %d\n%s", reasoning, got, want, body)
		}
		if reasoning > 0 && !strings.Contains(string(body), `"output_tokens_details":{"thinking_tokens":18}`) {
			t.Errorf("%d reasoning tokens: %s", reasoning, body)
		}
	}
}
