package textcalls

import (
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// TestKimiCallIndexIsNoName: in functions.NAME:INDEX the part after the last
// colon is the call's index, never part of the name, even when a tool's name
// looks like an index.
func TestKimiCallIndexIsNoName(t *testing.T) {
	tools := append(testTools(), llm.ToolDefinition{Name: ":0"})
	text := `<|tool_call_begin|>functions.:0<|tool_call_argument_begin|>{}<|tool_call_end|>`
	if res := Extract(text, tools, nil); len(res.Calls) != 0 {
		t.Errorf("%q: calls %v from %q, want none (no name before the index)", text, res.Calls, res.Envelope)
	}
	text = `<|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>`
	if res := Extract(text, tools, nil); len(res.Calls) != 1 || res.Calls[0].Name != "get_time" {
		t.Errorf("%q: calls %v, want get_time", text, res.Calls)
	}
}
