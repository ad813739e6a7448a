package textcalls

import (
	"encoding/json"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// TestExtractIssue44Families covers the envelopes of issue 44's families
// that TestExtractNewerFamilies does not, each case written for this package
// from the family's chat template or model card: where the template puts
// the call, what the call is read from, and where the engines are strict.
// The tools and values are this package's own.
func TestExtractIssue44Families(t *testing.T) {
	runCases(t, issue44Cases())
}

// bookTool requires both its arguments.
var bookTool = llm.ToolDefinition{Name: "book", Parameters: json.RawMessage(
	`{"type":"object","properties":{"room":{"type":"string"},"nights":{"type":"integer"}},"required":["room","nights"]}`)}

// issue44Cases are TestExtractIssue44Families's table; TestFamilyTableRates
// counts it.
func issue44Cases() []extractCase {
	none := func(name, text string) extractCase { return extractCase{name, text, "", nil, text} }
	oslo := []wantCall{{"get_time", `{"city":"Oslo"}`}}
	return []extractCase{
		// Hunyuan Hy3: a <tool_calls> block of <tool_call> entries, each the
		// tool's name, <tool_sep>, then key/value tag pairs, one a line.
		{"hy3 one call after text", "Checking the clock.\n<tool_calls>\n<tool_call>get_time<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>\n</tool_calls>",
			"hunyuan", oslo, "Checking the clock."},
		{"hy3 two calls typed by schema", "<tool_calls>\n<tool_call>add<tool_sep>\n<arg_key>a</arg_key>\n<arg_value>7</arg_value>\n<arg_key>b</arg_key>\n<arg_value>0.5</arg_value>\n</tool_call>\n<tool_call>toggle<tool_sep>\n<arg_key>on</arg_key>\n<arg_value>false</arg_value>\n</tool_call>\n</tool_calls>",
			"hunyuan", []wantCall{{"add", `{"a":7,"b":0.5}`}, {"toggle", `{"on":false}`}}, ""},
		{"hy3 no arguments", "<tool_calls><tool_call>note<tool_sep></tool_call></tool_calls>", "hunyuan", []wantCall{{"note", `{}`}}, ""},
		{"hy3 block end cut off", "<tool_calls>\n<tool_call>get_time<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>", "hunyuan", oslo, ""},
		// Hy4: the same without <tool_sep> or space, every tag carrying the
		// checkpoint's suffix.
		{"hy4 suffixed tags", "<tool_calls:opensource><tool_call:opensource>get_time<arg_key:opensource>city</arg_key:opensource><arg_value:opensource>Oslo</arg_value:opensource></tool_call:opensource></tool_calls:opensource>",
			"hunyuan", oslo, ""},
		// The dense Hunyuan models (7B and smaller): the template asks for
		// <tool_calls>, each call's name on its own line and its JSON
		// arguments in a json code fence, then </tool_calls>.
		{"hunyuan dense json fence", "Let me look.<tool_calls><tool_call>get_time\n```json\n{\"city\": \"Oslo\"}\n```</tool_call>\n<tool_call>add\n```json\n{\"a\": 1}\n```</tool_call></tool_calls>",
			"hunyuan", []wantCall{{"get_time", `{"city":"Oslo"}`}, {"add", `{"a":1}`}}, "Let me look."},
		none("hunyuan dense fence not json", "<tool_calls><tool_call>get_time\n```python\nget_time('Oslo')\n```</tool_call></tool_calls>"),
		none("hunyuan dense text after the fence", "<tool_calls><tool_call>get_time\n```json\n{\"city\": \"Oslo\"}\n```\nand then more</tool_call></tool_calls>"),
		none("hy3 entry outside a block", "The log has <tool_call>get_time<tool_sep><arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call> in it."),
		none("hy3 key without value", "<tool_calls><tool_call>get_time<tool_sep><arg_key>city</arg_key></tool_call></tool_calls>"),
		none("hy3 value cut off", "<tool_calls>\n<tool_call>get_time<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Os"),
		none("hy3 suffix mismatch", "<tool_calls:a><tool_call:b>get_time<arg_key:b>city</arg_key:b><arg_value:b>Oslo</arg_value:b></tool_call:b></tool_calls:a>"),
		none("hy3 in reasoning", "<think><tool_calls><tool_call>get_time<tool_sep><arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call></tool_calls></think>Noon in Oslo."),
		none("hy3 quoted", "Writing \"<tool_calls><tool_call>get_time<tool_sep><arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call></tool_calls>\" asks for the clock."),
		// Poolside Laguna: GLM-4.7's calls, the name right after <tool_call>
		// with no newline, after the reasoning's </think>; a call without
		// arguments is the bare name.
		{"laguna after reasoning", "The user wants the time.</think><tool_call>get_time<arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call>",
			"glm", oslo, "The user wants the time.</think>"},
		{"laguna call without arguments", "<tool_call>get_time<arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call>\n<tool_call>note</tool_call>",
			"glm", []wantCall{{"get_time", `{"city":"Oslo"}`}, {"note", `{}`}}, ""},
		// The GLM parsers read a call only up to its </tool_call>: one
		// left open is no call, even with its values closed.
		none("glm call left open", "<tool_call>get_time<arg_key>city</arg_key><arg_value>Oslo</arg_value>"),
		none("laguna call inside reasoning", "I could call <tool_call>get_time<arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call> but</think>It is noon."),
		none("glm-4.7 example line", "The format is:\n<tool_call>get_time<arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call>"),
		// Inkling: a model message whose header names the tool and whose
		// content, after <|content_invoke_tool_json|>, is {"name", "args"}.
		{"inkling message", "<|message_model|>get_time<|content_invoke_tool_json|>{\"name\":\"get_time\",\"args\":{\"city\":\"Oslo\"}}<|end_message|>", "inkling", oslo, ""},
		{"inkling after a text message", "<|message_model|><|content_text|>One moment.<|end_message|><|message_model|>add<|content_invoke_tool_json|>{\"name\":\"add\",\"args\":{\"a\":2}}<|end_message|>",
			"inkling", []wantCall{{"add", `{"a":2}`}}, "<|message_model|><|content_text|>One moment.<|end_message|>"},
		{"inkling detokenized", "get_time<|content_invoke_tool_json|>{\"name\":\"get_time\",\"args\":{\"city\":\"Oslo\"}}", "inkling", oslo, ""},
		{"inkling detokenized after text", "One moment.get_time<|content_invoke_tool_json|>{\"name\":\"get_time\",\"args\":{\"city\":\"Oslo\"}}", "inkling", oslo, "One moment."},
		{"inkling empty header", "<|message_model|><|content_invoke_tool_json|>{\"name\":\"get_time\",\"args\":{\"city\":\"Oslo\"}}<|end_message|>", "inkling", oslo, ""},
		none("inkling header disagrees", "<|message_model|>add<|content_invoke_tool_json|>{\"name\":\"get_time\",\"args\":{\"city\":\"Oslo\"}}<|end_message|>"),
		none("inkling payload without args", "<|message_model|>get_time<|content_invoke_tool_json|>{\"name\":\"get_time\",\"arguments\":{\"city\":\"Oslo\"}}<|end_message|>"),
		none("inkling call in thinking", "<|message_model|><|content_thinking|>maybe get_time<|content_invoke_tool_json|>{\"name\":\"get_time\",\"args\":{\"city\":\"Oslo\"}}<|end_message|><|message_model|><|content_text|>Noon.<|end_message|>"),
		// MiniCPM5: the name and the keys in single or double quotes.
		{"minicpm single quotes", "<function name='get_time'><param name='city'>Oslo</param></function>", "minicpm", oslo, ""},
		{"minicpm after text", "Looking.\n<function name=\"add\">\n<param name=\"a\">4</param>\n</function>", "minicpm", []wantCall{{"add", `{"a":4}`}}, "Looking."},
		// MiniCPM5 is strict: a call lacking an argument its schema
		// requires, naming a key twice, or holding a param without a name is
		// no call.
		none("minicpm required argument missing", "<function name=\"book\"><param name=\"room\">12</param></function>"),
		none("minicpm key twice", "<function name=\"get_time\"><param name=\"city\">Oslo</param><param name=\"city\">Rome</param></function>"),
		none("minicpm param without a name", "<function name=\"get_time\"><param>Oslo</param></function>"),
		{"minicpm required present", "<function name=\"book\"><param name=\"room\">12</param><param name=\"nights\">2</param></function>", "minicpm", []wantCall{{"book", `{"nights":2,"room":"12"}`}}, ""},
		none("minicpm quoted", "The reply '<function name=\"add\"><param name=\"a\">4</param></function>' would add."),
		// GigaChat 3.5: invokes inside <｜GCML｜tool_calls>, a parameter's
		// value JSON when string="false".
		{"gigachat 3.5", "Adding.<｜GCML｜tool_calls><｜GCML｜invoke name=\"add\"><｜GCML｜parameter name=\"a\" string=\"false\">3</｜GCML｜parameter></｜GCML｜invoke><｜GCML｜invoke name=\"get_time\"><｜GCML｜parameter name=\"city\" string=\"true\">Oslo</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>",
			"gigachat", []wantCall{{"add", `{"a":3}`}, {"get_time", `{"city":"Oslo"}`}}, "Adding."},
		none("gigachat 3.5 invoke outside the block", "<｜GCML｜invoke name=\"add\"><｜GCML｜parameter name=\"a\" string=\"false\">3</｜GCML｜parameter></｜GCML｜invoke>"),
		// GigaChat 3: function call<|role_sep|> and the JSON call.
		{"gigachat 3 role separator", "Checking.<|message_sep|>\n\nfunction call<|role_sep|>\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Oslo\"}}", "gigachat", oslo, "Checking."},
		// MiniMax-M1: one JSON call a line in <tool_calls>.
		{"minimax m1 lines", "<tool_calls>\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Oslo\"}}\n{\"name\": \"note\", \"arguments\": {}}\n</tool_calls>", "apriel",
			[]wantCall{{"get_time", `{"city":"Oslo"}`}, {"note", `{}`}}, ""},
		// MiniMax-M2's parsers read invokes only inside a whole
		// <minimax:tool_call>…</minimax:tool_call> block.
		none("minimax m2 block not closed", "<minimax:tool_call>\n<invoke name=\"get_time\">\n<parameter name=\"city\">Oslo</parameter>\n</invoke>"),
		none("minimax m2 invoke without its block", "<invoke name=\"get_time\">\n<parameter name=\"city\">Oslo</parameter>\n</invoke>"),
		none("minimax m2 invoke not closed", "<minimax:tool_call>\n<invoke name=\"get_time\">\n<parameter name=\"city\">Oslo</parameter>\n</minimax:tool_call>"),
		// Hunyuan-A13B's, Jamba's and MiniMax-M1's parsers read a
		// <tool_calls> list only up to its </tool_calls>.
		none("hunyuan a13b list left open", "<tool_calls>[{\"name\": \"get_time\", \"arguments\": {\"city\": \"Oslo\"}}]"),
		none("minimax m1 lines left open", "<tool_calls>\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Oslo\"}}\n"),
		none("minimax m2 invoke in a code block", "```xml\n<minimax:tool_call><invoke name=\"get_time\"><parameter name=\"city\">Oslo</parameter></invoke></minimax:tool_call>\n```"),
	}
}

// TestFamilyTableRates reports, over issue44Cases, the rate of cases with
// calls extracted right and of cases without calls where none is invented
// (the figures issue 44 asks for); each case is asserted by
// TestExtractIssue44Families.
func TestFamilyTableRates(t *testing.T) {
	var pos, neg tally
	for _, tc := range issue44Cases() {
		res := Extract(tc.text, testTools(), nil)
		var got []wantCall
		for _, c := range res.Calls {
			got = append(got, wantCall{c.Name, c.Arguments})
		}
		ok := len(got) == len(tc.calls) && res.Content == tc.content
		for i := range got {
			ok = ok && got[i] == tc.calls[i]
		}
		if tc.calls != nil {
			pos.add(ok)
		} else {
			neg.add(ok)
		}
	}
	t.Logf("issue 44 family table: with calls %s; without calls %s", pos, neg)
}
