package textcalls

import (
	"strings"
	"testing"
)

// hostileOpeners are envelope openers repeated with no body: each finder must
// stay linear in the text however many times its opener is repeated.
var hostileOpeners = []string{
	"function call{", "function call<|role_sep|>{", "<|function_call|>{",
	"<tool_call>{", "<TOOLCALL>[", "<tool_calls>[", "<|START_ACTION|>[",
	"<|tools_prefix|>[", "<|tool_call|>[", " functools[", "<|python_tag|>{",
	"[TOOL_CALLS]{", "[TOOL_CALLS]add{", "<user>\nadd\n{",
	// The envelopes of issue 27.
	"<function_call>{", "<longcat_tool_call>{", "<|action_start|><|plugin|>{", "functools[{",
	"<steptml:invoke name=\"add\">", "<|tool_call_start|>[{",
	// The envelopes of issue 44.
	"<tool_calls><tool_call>add<tool_sep>", "<tool_calls:x><tool_call:x>add", "<tool_calls:", "<tool_calls>\n<tool_call>add\n```json\n{",
	"add<|content_invoke_tool_json|>{", "<|message_model|>add<|content_invoke_tool_json|>", "<|content_thinking|>",
	"<｜GCML｜tool_calls><｜GCML｜invoke name=\"add\">", "<function name='add'><param>", "<minimax:tool_call><invoke name=\"add\">",
}

// BenchmarkHostileRepeat runs Extract on ~500 KB of one opener repeated.
func BenchmarkHostileRepeat(b *testing.B) {
	tools := testTools()
	for _, op := range hostileOpeners {
		text := strings.Repeat(op, 500_000/len(op))
		b.Run(strings.TrimSpace(op), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				Extract(text, tools, nil)
			}
		})
	}
}

// TestHostileRepeatNoCalls: an opener repeated with no > or ] anywhere is a
// call cut off with the response, not a call, and the text comes back whole.
// (Its speed, once quadratic, is measured by BenchmarkHostileRepeat.)
func TestHostileRepeatNoCalls(t *testing.T) {
	for _, op := range []string{"function call{", " functools[", "function call<|role_sep|>{"} {
		text := strings.Repeat(op, 2000)
		res := Extract(text, testTools(), nil)
		if len(res.Calls) != 0 || res.Content != text {
			t.Errorf("%q repeated: %d calls from envelope %q; content changed: %v", op, len(res.Calls), res.Envelope, res.Content != text)
		}
	}
}
