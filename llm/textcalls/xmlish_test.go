package textcalls

import (
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// TestInvokeEdges: MiniMax-style <invoke name="..."> blocks at the very start
// of the text, and an invoke without a name, which is no call and hides
// what it holds from the envelopes tried after it.
func TestInvokeEdges(t *testing.T) {
	tools := append(testTools(), llm.ToolDefinition{Name: "get_current_time"})
	text := `<minimax:tool_call><invoke name="get_current_time"><parameter name="city">Paris</parameter></invoke></minimax:tool_call>`
	res := Extract(text, tools, nil)
	if res.Envelope != "minimax" || len(res.Calls) != 1 || res.Calls[0].Arguments != `{"city":"Paris"}` {
		t.Errorf("%q: %q %v, want minimax get_current_time {\"city\":\"Paris\"}", text, res.Envelope, res.Calls)
	}
	text = "<｜DSML｜invoke>\n<｜DSML｜parameter name=\"q\" string=\"true\">\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n</｜DSML｜parameter>\n</｜DSML｜invoke>"
	if res := Extract(text, tools, nil); len(res.Calls) != 0 || res.Content != text {
		t.Errorf("invoke without a name: %q %v, want no call", res.Envelope, res.Calls)
	}
}
