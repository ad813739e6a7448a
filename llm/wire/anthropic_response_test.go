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
