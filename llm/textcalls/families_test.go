package textcalls

import (
	"encoding/json"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// TestExtractFamilies covers issue 27's model families, each written from the
// family's chat template or an inference engine's description of its parser,
// with this package's own tools and data.
func TestExtractFamilies(t *testing.T) {
	tokyo := []wantCall{{"get_time", `{"city":"Tokyo"}`}}
	sum := []wantCall{{"add", `{"a":4,"b":0.5}`}}
	runCases(t, []extractCase{
		// DeepSeek V3.1: name<｜tool▁sep｜>JSON arguments.
		{"deepseek v3.1", "Checking.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{\"city\": \"Tokyo\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "deepseek", tokyo, "Checking."},
		// DeepSeek V3.2 DSML: string="false" bodies are JSON, string="true" text.
		{"deepseek v3.2 dsml typed", "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"add\">\n<｜DSML｜parameter name=\"a\" string=\"false\">4</｜DSML｜parameter>\n<｜DSML｜parameter name=\"b\" string=\"false\">0.5</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>", "deepseek_dsml", sum, ""},
		{"deepseek v3.2 dsml json array", "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"todo\">\n<｜DSML｜parameter name=\"items\" string=\"false\">[3, 1]</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>", "deepseek_dsml", []wantCall{{"todo", `{"items":[3,1]}`}}, ""},
		// Kimi K2: functions.name:index and a JSON argument section.
		{"kimi k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>{\"city\":\"Tokyo\"}<|tool_call_end|><|tool_calls_section_end|>", "kimi_k2", tokyo, ""},
		// GLM-4.5 puts line breaks between the tags; GLM-4.7 writes none.
		{"glm 4.5", "<tool_call>add\n<arg_key>a</arg_key>\n<arg_value>4</arg_value>\n<arg_key>b</arg_key>\n<arg_value>0.5</arg_value>\n</tool_call>", "glm", sum, ""},
		{"glm 4.7", "<tool_call>add<arg_key>a</arg_key><arg_value>4</arg_value><arg_key>b</arg_key><arg_value>0.5</arg_value></tool_call>", "glm", sum, ""},
		// MiniMax M2: <invoke> XML in <minimax:tool_call>.
		{"minimax m2", "<minimax:tool_call>\n<invoke name=\"get_time\">\n<parameter name=\"city\">Tokyo</parameter>\n</invoke>\n</minimax:tool_call>", "minimax", tokyo, ""},
		// Hunyuan-A13B: a JSON list in <tool_calls>.
		{"hunyuan", "I will look it up.\n<tool_calls>[{\"name\": \"get_time\", \"arguments\": {\"city\": \"Tokyo\"}}]</tool_calls>", "apriel", tokyo, "I will look it up."},
		// LFM2: a Python-style call list, or JSON when the system prompt asks for it.
		{"lfm2 pythonic", "<|tool_call_start|>[add(a=4, b=0.5)]<|tool_call_end|>Adding.", "pythonic", sum, "Adding."},
		{"lfm2 json", "<|tool_call_start|>[{\"name\": \"add\", \"arguments\": {\"a\": 4, \"b\": 0.5}}]<|tool_call_end|>", "pythonic", sum, ""},
		// Step-3: steptml invoke markup inside DeepSeek-like tokens with ASCII words.
		{"step3", "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"add\"><steptml:parameter name=\"a\">4</steptml:parameter><steptml:parameter name=\"b\">0.5</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>", "step3", sum, ""},
		{"step3 two calls and text", "Two lookups.\n<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"get_time\">\n<steptml:parameter name=\"city\">Tokyo</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"toggle\">\n<steptml:parameter name=\"on\">false</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>", "step3", []wantCall{{"get_time", `{"city":"Tokyo"}`}, {"toggle", `{"on":false}`}}, "Two lookups."},
		// Seed-OSS: the Qwen3-Coder XML in <seed:tool_call>.
		{"seed oss", "<seed:tool_call>\n<function=add>\n<parameter=a>4</parameter>\n<parameter=b>0.5</parameter>\n</function>\n</seed:tool_call>", "seed_oss", sum, ""},
		// Qwen3-Coder: values typed by the tool's schema; strings stay strings.
		{"qwen3 coder typed", "<tool_call>\n<function=config>\n<parameter=cfg>\n{\"level\": \"2\"}\n</parameter>\n</function>\n</tool_call>", "qwen3_coder_xml", []wantCall{{"config", `{"cfg":{"level":2}}`}}, ""},
		{"qwen3 coder null for an integer", "<tool_call>\n<function=add>\n<parameter=a>\nnull\n</parameter>\n<parameter=b>\n2\n</parameter>\n</function>\n</tool_call>", "qwen3_coder_xml", []wantCall{{"add", `{"a":null,"b":2}`}}, ""},
		{"qwen3 coder null stays a string", "<tool_call>\n<function=get_time>\n<parameter=city>\nnull\n</parameter>\n</function>\n</tool_call>", "qwen3_coder_xml", []wantCall{{"get_time", `{"city":"null"}`}}, ""},
		{"qwen3 coder string stays", "<tool_call>\n<function=get_time>\n<parameter=city>\n42\n</parameter>\n</function>\n</tool_call>", "qwen3_coder_xml", []wantCall{{"get_time", `{"city":"42"}`}}, ""},
		// InternLM2: <|action_start|><|plugin|> and a JSON call.
		{"internlm", "Let me see.<|action_start|><|plugin|>\n{\"name\": \"get_time\", \"parameters\": {\"city\": \"Tokyo\"}}<|action_end|>", "internlm", tokyo, "Let me see."},
		// LongCat: JSON in <longcat_tool_call>.
		{"longcat", "<longcat_tool_call>{\"name\": \"get_time\", \"arguments\": {\"city\": \"Tokyo\"}}</longcat_tool_call>\nDone.", "longcat", tokyo, "Done."},
		// Granite 20B function calling: <function_call> before each JSON call.
		{"granite 20b fc", "<function_call> {\"name\": \"get_time\", \"arguments\": {\"city\": \"Tokyo\"}}\n<function_call> {\"name\": \"add\", \"arguments\": {\"a\": 4, \"b\": 0.5}}", "granite_fc", append(append([]wantCall(nil), tokyo...), sum...), ""},
		// Phi-4-mini: functools[...] at the start of the message.
		{"phi-4-mini", "functools[{\"name\": \"get_time\", \"arguments\": {\"city\": \"Tokyo\"}}]", "firefunction", tokyo, ""},
	})
}

// TestExtractStrict covers issue 27's strictness: where an engine's parser
// returns no call, Extract returns none and the text stays content.
func TestExtractStrict(t *testing.T) {
	none := func(name, text string) extractCase { return extractCase{name, text, "", nil, text} }
	runCases(t, []extractCase{
		// Invalid JSON that repair could only make valid by inventing: a
		// value for a bare key, the end of a string, a placeholder.
		none("key with no value", `<tool_call>{"name": "get_time", "arguments": {"city": "Lima", oops}}</tool_call>`),
		none("string end guessed", `<tool_call>{"name": "get_time", "arguments": {"city": "Lima}}</tool_call>`),
		none("placeholder", `<tool_call>{"name": "get_time", "arguments": {"city": "Lima", ...}}</tool_call>`),
		none("cut literal", "<|tool_call_begin|>functions.toggle:0<|tool_call_argument_begin|>{\"on\": tru<|tool_call_end|>"),
		none("wrapped in a call", `<tool_call>{"name": "get_time", "arguments": wrap({"city": "Lima"})}</tool_call>`),
		none("key value lines", "<|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>city: Lima<|tool_call_end|>"),
		none("two values", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{\"city\": \"Lima\"} {\"city\": \"Quito\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
		// An arg_key with no arg_value is no call.
		none("glm key without value", "<tool_call>get_time<arg_key>city</arg_key></tool_call>"),
		// Fixable syntax in an envelope the model clearly meant is repaired.
		{"trailing comma repaired", `<tool_call>{"name": "get_time", "arguments": {"city": "Lima",}}</tool_call>`, "hermes", []wantCall{{"get_time", `{"city":"Lima"}`}}, ""},
		{"single quotes repaired", `<tool_call>{'name': 'get_time', 'arguments': {'city': 'Lima'}}</tool_call>`, "hermes", []wantCall{{"get_time", `{"city":"Lima"}`}}, ""},
		{"missing brace repaired", `<tool_call>{"name": "get_time", "arguments": {"city": "Lima"}</tool_call>`, "hermes", []wantCall{{"get_time", `{"city":"Lima"}`}}, ""},
	})
}

// TestRejectedCallNotReread: a call that one envelope rejected is not taken by
// another. Hermes drops the cut call that lacks its required argument, and
// bare_json must not then read the same JSON as a call on a line of its own.
func TestRejectedCallNotReread(t *testing.T) {
	tools := []llm.ToolDefinition{{Name: "weather", Parameters: json.RawMessage(
		`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}`)}}
	for _, text := range []string{
		"<tool_call>\n{\"name\": \"weather\", \"arguments\": {\"days\": 2}}",
		"Checking.\n<tool_call>\n{\"name\": \"weather\", \"arguments\": {\"days\": 2}}\n",
	} {
		if res := Extract(text, tools, nil); len(res.Calls) != 0 || res.Content != text {
			t.Errorf("Extract(%q) = %s %+v, content %q; want no call", text, res.Envelope, res.Calls, res.Content)
		}
	}
}
