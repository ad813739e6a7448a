package textcalls

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// testTools offers get_time(city string), add(a, b integer), toggle(on boolean),
// todo(items array), config(cfg object) and note(text string).
func testTools() []llm.ToolDefinition {
	def := func(name, params string) llm.ToolDefinition {
		return llm.ToolDefinition{Name: name, Parameters: json.RawMessage(params)}
	}
	return []llm.ToolDefinition{
		def("get_time", `{"type":"object","properties":{"city":{"type":"string"}}}`),
		def("add", `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"number"}}}`),
		def("toggle", `{"type":"object","properties":{"on":{"type":"boolean"}}}`),
		def("todo", `{"type":"object","properties":{"items":{"type":"array","items":{"type":"integer"}}}}`),
		def("config", `{"type":"object","properties":{"cfg":{"type":"object","properties":{"level":{"type":"integer"}}}}}`),
		{Name: "note"},
		bookTool,
	}
}

type wantCall struct{ name, args string }

type extractCase struct {
	name     string
	text     string
	envelope string
	calls    []wantCall
	content  string
}

func runCases(t *testing.T, cases []extractCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Extract(tc.text, testTools(), nil)
			if res.Envelope != tc.envelope {
				t.Errorf("envelope = %q, want %q", res.Envelope, tc.envelope)
			}
			var got []wantCall
			for _, c := range res.Calls {
				got = append(got, wantCall{c.Name, c.Arguments})
			}
			if !reflect.DeepEqual(got, tc.calls) {
				t.Errorf("calls = %v, want %v", got, tc.calls)
			}
			if res.Content != tc.content {
				t.Errorf("content = %q, want %q", res.Content, tc.content)
			}
		})
	}
}

func TestExtractEnvelopes(t *testing.T) {
	paris := []wantCall{{"get_time", `{"city":"Paris"}`}}
	runCases(t, []extractCase{
		{"hermes", "Let me check.\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", "hermes", paris, "Let me check."},
		{"hermes unclosed", "<tool_call>{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}", "hermes", paris, ""},
		{"hermes unclosed then prose", "<tool_call>{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\nChecking the clock.", "hermes", paris, "Checking the clock."},
		{"hermes missing brace before close", "<tool_call>{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}</tool_call>", "hermes", paris, ""},
		{"hermes truncated close", "<tool_call>{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}</tool_c", "hermes", paris, ""},
		{"hermes string arguments", `<tool_call>{"name": "get_time", "arguments": "{\"city\": \"Paris\"}"}</tool_call>`, "hermes", paris, ""},
		{"hermes two", "<tool_call>{\"name\":\"get_time\",\"arguments\":{\"city\":\"Paris\"}}</tool_call>\n<tool_call>{\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}}</tool_call>", "hermes",
			[]wantCall{{"get_time", `{"city":"Paris"}`}, {"add", `{"a":1,"b":2}`}}, ""},
		{"qwen3 coder xml", "<tool_call>\n<function=add>\n<parameter=a>\n3\n</parameter>\n<parameter=b>\n2.5\n</parameter>\n</function>\n</tool_call>", "qwen3_coder_xml",
			[]wantCall{{"add", `{"a":3,"b":2.5}`}}, ""},
		{"qwen3 coder xml bare", "<function=toggle>\n<parameter=on>\ntrue\n</parameter>\n</function>", "qwen3_coder_xml", []wantCall{{"toggle", `{"on":true}`}}, ""},
		{"qwen3 coder xml json values", "<function=config>\n<parameter=cfg>\n{\"level\": \"2\"}\n</parameter>\n</function><function=todo><parameter=items>[1,2]</parameter></function>", "qwen3_coder_xml",
			[]wantCall{{"config", `{"cfg":{"level":2}}`}, {"todo", `{"items":[1,2]}`}}, ""},
		{"qwen3 coder xml string stays", "<function=get_time>\n<parameter=city>\n42\n</parameter>\n</function>", "qwen3_coder_xml", []wantCall{{"get_time", `{"city":"42"}`}}, ""},
		{"qwen3 coder xml no schema", "<function=note>\n<parameter=text>\n42\n</parameter>\n</function>", "qwen3_coder_xml", []wantCall{{"note", `{"text":"42"}`}}, ""},
		// A parameter left open ends where the next one starts, as the
		// closing tag would have ended it: the next parameter is not its value.
		{"qwen3 coder xml parameter left open", "<function=note>\n<parameter=title>\n<parameter=text>\nhi\n</parameter>\n</function>", "qwen3_coder_xml",
			[]wantCall{{"note", `{"text":"hi","title":""}`}}, ""},
		{"qwen3 coder xml parameter left open with a value", "<function=note>\n<parameter=title>\nDraft\n<parameter=text>\nhi\n</parameter>\n</function>", "qwen3_coder_xml",
			[]wantCall{{"note", `{"text":"hi","title":"Draft"}`}}, ""},
		{"mistral list", `[TOOL_CALLS][{"name": "get_time", "arguments": {"city": "Paris"}, "id": "abc123xyz"}]`, "mistral", paris, ""},
		{"mistral name json", `[TOOL_CALLS]get_time{"city": "Paris"}`, "mistral", paris, ""},
		{"mistral args", `Sure.[TOOL_CALLS]get_time[ARGS]{"city": "Paris"}[TOOL_CALLS]add[CALL_ID]000000002[ARGS]{"a": 1, "b": 2}`, "mistral",
			[]wantCall{{"get_time", `{"city":"Paris"}`}, {"add", `{"a":1,"b":2}`}}, "Sure."},
		{"mistral [ARGS] inside the arguments", `[TOOL_CALLS]note{"text": "write [ARGS] here"}`, "mistral", []wantCall{{"note", `{"text":"write [ARGS] here"}`}}, ""},
		{"mistral call id without args token", `[TOOL_CALLS]get_time[CALL_ID]abc{"city": "Paris"}`, "", nil, `[TOOL_CALLS]get_time[CALL_ID]abc{"city": "Paris"}`},
		{"llama python tag", `<|python_tag|>{"name": "get_time", "parameters": {"city": "Paris"}}`, "llama_python_tag", paris, ""},
		{"llama bare", `{"type": "function", "name": "get_time", "parameters": {"city": "Paris"}}`, "bare_json", paris, ""},
		{"deepseek r1", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", "deepseek", paris, ""},
		{"deepseek v3.1", `Checking.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`, "deepseek", paris, "Checking."},
		{"deepseek v3.2 dsml", "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"add\">\n<｜DSML｜parameter name=\"a\" string=\"false\">4</｜DSML｜parameter>\n<｜DSML｜parameter name=\"b\" string=\"true\">5</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>", "deepseek_dsml",
			[]wantCall{{"add", `{"a":4,"b":5}`}}, ""},
		{"kimi k2", `<|tool_calls_section_begin|><|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>`, "kimi_k2", paris, ""},
		{"kimi k2 unterminated", `<|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_begin|>functions.add:1<|tool_call_argument_begin|>{"a": 1}`, "kimi_k2",
			[]wantCall{{"get_time", `{"city":"Paris"}`}, {"add", `{"a":1}`}}, ""},
		{"functionary v3.1", `<function=get_time>{"city": "Paris"}</function>`, "functionary", paris, ""},
		{"functionary v3.2", ">>>get_time\n{\"city\": \"Paris\"}", "functionary", paris, ""},
		{"functionary v3.2 first", "get_time\n{\"city\": \"Paris\"}", "functionary", paris, ""},
		{"granite", `<|tool_call|>[{"name": "get_time", "arguments": {"city": "Paris"}}]`, "granite", paris, ""},
		// Envelopes without a closing token end with their call: the text
		// after it stays content, as for <|python_tag|>.
		{"granite then prose", "<|tool_call|>[{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}]\nChecking the clock.", "granite", paris, "Checking the clock."},
		{"firefunction then prose", "I'll check. functools[{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}]\nChecking the clock.", "firefunction", paris, "I'll check.\nChecking the clock."},
		{"gigachat then prose", "<|function_call|>{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\nChecking the clock.", "gigachat", paris, "Checking the clock."},
		{"gemma 4", `<|tool_call>call:get_time{city:<|"|>Paris<|"|>}<tool_call|>`, "gemma", paris, ""},
		{"gemma nested", `<|tool_call>call:config{cfg:{level:2}}<tool_call|><|tool_call>call:todo{items:[1,-2]}<tool_call|>`, "gemma",
			[]wantCall{{"config", `{"cfg":{"level":2}}`}, {"todo", `{"items":[1,-2]}`}}, ""},
		{"gemma escape", `<start_function_call>call:get_time{city:<escape>Paris<escape>}<end_function_call>`, "gemma", paris, ""},
		{"gemma bare", `call:get_time{city:<escape>Paris<escape>}`, "gemma", paris, ""},
		{"pythonic wrapped", `Checking.<|tool_call_start|>[get_time(city="Paris"), toggle(on=True)]<|tool_call_end|>`, "pythonic",
			[]wantCall{{"get_time", `{"city":"Paris"}`}, {"toggle", `{"on":true}`}}, "Checking."},
		{"pythonic bare", `[add(a=1, b=2.5), config(cfg={'level': 3})]`, "pythonic", []wantCall{{"add", `{"a":1,"b":2.5}`}, {"config", `{"cfg":{"level":3}}`}}, ""},
		{"tool_calls json", `{"tool_calls": [{"type": "function", "function": {"name": "get_time", "arguments": "{\"city\":\"Paris\"}"}}]}`, "tool_calls_json", paris, ""},
		{"fenced json", "I will call it:\n```json\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n```\nDone.", "fenced_json", paris, "I will call it:\n\nDone."},
		{"forge json", `<tool>{"server_name": "clock", "tool_name": "get_time", "arguments": {"city": "Paris"}}</tool>`, "forge", paris, ""},
		{"forge xml", "<tool>\n<server_name>clock</server_name>\n<tool_name>get_time</tool_name>\n<arguments>{\"city\": \"Paris\"}</arguments>\n</tool>", "forge", paris, ""},
		{"forge json and xml", "<tool>{\"tool_name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}</tool>\n<tool><tool_name>add</tool_name><arguments>{\"a\": 1}</arguments></tool>", "forge",
			[]wantCall{{"get_time", `{"city":"Paris"}`}, {"add", `{"a":1}`}}, ""},
		{"llama python tag json and builtin", `<|python_tag|>{"name": "get_time", "parameters": {"city": "Paris"}}<|eom_id|><|python_tag|>toggle.call(on=True)`, "llama_python_tag",
			[]wantCall{{"get_time", `{"city":"Paris"}`}, {"toggle", `{"on":true}`}}, ""},
		{"forge xml arguments left open before close", "<tool><tool_name>get_time</tool_name><arguments>{\"city\": \"Paris\"}</tool>", "forge", paris, ""},
		{"minicpm cdata holding a closing tag", "<function name=\"note\"><param name=\"text\">\n<![CDATA[a </param> b]]>\n</param></function>", "minicpm", []wantCall{{"note", `{"text":"a </param> b"}`}}, ""},
		{"minicpm value left open before close", `<function name="get_time"><param name="city">Paris</function>`, "minicpm", paris, ""},
		{"glm", "<tool_call>add<arg_key>a</arg_key><arg_value>1</arg_value><arg_key>b</arg_key><arg_value>2</arg_value></tool_call>", "glm", []wantCall{{"add", `{"a":1,"b":2}`}}, ""},
		{"minimax", "<minimax:tool_call>\n<invoke name=\"get_time\">\n<parameter name=\"city\">Paris</parameter>\n</invoke>\n</minimax:tool_call>", "minimax", paris, ""},
		{"minicpm", `<function name="get_time"><param name="city"><![CDATA[Paris]]></param></function>`, "minicpm", paris, ""},
		{"seed oss", "<seed:tool_call>\n<function=get_time>\n<parameter=city>Paris</parameter>\n</function>\n</seed:tool_call>", "seed_oss", paris, ""},
		{"seed oss long first call", "<seed:tool_call>\n<function=note>\n<parameter=text>" + strings.Repeat("x", 300) + "</parameter>\n</function>\n<function=get_time>\n<parameter=city>Paris</parameter>\n</function>\n</seed:tool_call>", "seed_oss",
			[]wantCall{{"note", `{"text":"` + strings.Repeat("x", 300) + `"}`}, {"get_time", `{"city":"Paris"}`}}, ""},
		{"seed oss wrapper closed before the call", "<seed:tool_call></seed:tool_call>\n<function=get_time>\n<parameter=city>Paris</parameter>\n</function>", "qwen3_coder_xml", paris, "<seed:tool_call></seed:tool_call>"},
		{"gpt-oss", `<|channel|>analysis<|message|>Need time.<|end|><|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{"city": "Paris"}<|call|>`, "gpt_oss", paris,
			"<|channel|>analysis<|message|>Need time.<|end|>"},
		{"command r", `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_time", "parameters": {"city": "Paris"}}]<|END_ACTION|>`, "command_r", paris, ""},
		{"bare json after think", "<think>the user wants the time</think>\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}", "bare_json", paris, "<think>the user wants the time</think>"},
		{"llama builtin", `<|python_tag|>get_time.call(city="Paris")`, "llama_python_tag", paris, ""},
		// Without <|eom_id|>, the python tag's body ends with its call: the
		// text after it is not swallowed. Only the first envelope's calls are
		// extracted (see the package doc), so a second envelope stays content.
		{"llama python tag then another envelope", `<|python_tag|>{"name": "get_time", "parameters": {"city": "Paris"}}<|tool_call_start|>[add(a=1)]<|tool_call_end|>`, "llama_python_tag", paris,
			"<|tool_call_start|>[add(a=1)]<|tool_call_end|>"},
		{"llama python tag then prose", "<|python_tag|>{\"name\": \"get_time\", \"parameters\": {\"city\": \"Paris\"}}\nChecking the clock.", "llama_python_tag", paris, "Checking the clock."},
		{"llama builtin then prose", "<|python_tag|>get_time.call(city=\"Paris\")\nChecking the clock.", "llama_python_tag", paris, "Checking the clock."},
		{"llama python tag closed, then prose", "<|python_tag|>{\"name\": \"get_time\", \"parameters\": {\"city\": \"Paris\"}}<|eom_id|>Checking.", "llama_python_tag", paris, "Checking."},
		{"think then call", "<think>maybe get_time</think>\n<tool_call>{\"name\":\"get_time\",\"arguments\":{\"city\":\"Paris\"}}</tool_call>", "hermes", paris, "<think>maybe get_time</think>"},
	})
}

func TestExtractNegatives(t *testing.T) {
	runCases(t, []extractCase{
		{"prose", "The time in Paris is 10:00.", "", nil, "The time in Paris is 10:00."},
		{"inside think", "<think><tool_call>{\"name\":\"get_time\",\"arguments\":{\"city\":\"Paris\"}}</tool_call></think>It is late.", "", nil,
			"<think><tool_call>{\"name\":\"get_time\",\"arguments\":{\"city\":\"Paris\"}}</tool_call></think>It is late."},
		{"before lone think close", "I could write <tool_call>{\"name\":\"get_time\",\"arguments\":{}}</tool_call>\n</think>\nNo call needed.", "", nil,
			"I could write <tool_call>{\"name\":\"get_time\",\"arguments\":{}}</tool_call>\n</think>\nNo call needed."},
		{"unclosed think", "<think>maybe\n{\"name\":\"get_time\",\"arguments\":{}}", "", nil, "<think>maybe\n{\"name\":\"get_time\",\"arguments\":{}}"},
		{"for example", "For example, <tool_call>{\"name\":\"get_time\",\"arguments\":{\"city\":\"Paris\"}}</tool_call> asks for the time.", "", nil,
			"For example, <tool_call>{\"name\":\"get_time\",\"arguments\":{\"city\":\"Paris\"}}</tool_call> asks for the time."},
		{"example on previous line", "Here is the format:\n<tool_call>{\"name\":\"get_time\",\"arguments\":{}}</tool_call>", "", nil,
			"Here is the format:\n<tool_call>{\"name\":\"get_time\",\"arguments\":{}}</tool_call>"},
		{"xml fence", "```xml\n<tool_call>{\"name\":\"get_time\",\"arguments\":{}}</tool_call>\n```", "", nil, "```xml\n<tool_call>{\"name\":\"get_time\",\"arguments\":{}}</tool_call>\n```"},
		{"unlabelled fence", "```\n<tool_call>{\"name\":\"get_time\",\"arguments\":{}}</tool_call>\n```", "", nil, "```\n<tool_call>{\"name\":\"get_time\",\"arguments\":{}}</tool_call>\n```"},
		{"python fence", "```python\n[get_time(city=\"Paris\")]\n```", "", nil, "```python\n[get_time(city=\"Paris\")]\n```"},
		{"fenced json as example", "For example:\n```json\n{\"name\": \"get_time\", \"arguments\": {}}\n```", "", nil, "For example:\n```json\n{\"name\": \"get_time\", \"arguments\": {}}\n```"},
		{"inline code", "Write `<tool_call>{\"name\":\"get_time\",\"arguments\":{}}</tool_call>` to call it.", "", nil,
			"Write `<tool_call>{\"name\":\"get_time\",\"arguments\":{}}</tool_call>` to call it."},
		{"not offered", "<tool_call>{\"name\":\"rm_rf\",\"arguments\":{}}</tool_call>", "", nil, "<tool_call>{\"name\":\"rm_rf\",\"arguments\":{}}</tool_call>"},
		{"bare json not a call", `{"amount": 123.45, "date": "2025-12-03"}`, "", nil, `{"amount": 123.45, "date": "2025-12-03"}`},
		{"bare json not offered", `{"name": "delete", "parameters": {}}`, "", nil, `{"name": "delete", "parameters": {}}`},
		{"bare json with prose", `Use {"name": "get_time", "parameters": {}} to ask.`, "", nil, `Use {"name": "get_time", "parameters": {}} to ask.`},
		{"markdown link", "Use this: [Wikipedia](https://www.wikipedia.org).", "", nil, "Use this: [Wikipedia](https://www.wikipedia.org)."},
		{"cut off mid arguments", "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"city\": ", "", nil, "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"city\": "},
		{"cut off mid parameter", "<tool_call>\n<function=get_time>\n<parameter=city>\nPar", "", nil, "<tool_call>\n<function=get_time>\n<parameter=city>\nPar"},
		{"cut off kimi", "<|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>{\"city\": \"Pa", "", nil, "<|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>{\"city\": \"Pa"},
		{"cut off minicpm", "<function name=\"get_time\"><param name=\"city\">Par", "", nil, "<function name=\"get_time\"><param name=\"city\">Par"},
		{"cut off minicpm cdata", "<function name=\"get_time\"><param name=\"city\"><![CDATA[Par", "", nil, "<function name=\"get_time\"><param name=\"city\"><![CDATA[Par"},
		{"cut off forge", "<tool><tool_name>get_time</tool_name><arguments>{\"city\": \"Pa", "", nil, "<tool><tool_name>get_time</tool_name><arguments>{\"city\": \"Pa"},
		{"cut off forge name", "<tool><tool_name>get_time", "", nil, "<tool><tool_name>get_time"},
		{"arguments not an object", "<tool_call>{\"name\":\"get_time\",\"arguments\":42}</tool_call>", "", nil, "<tool_call>{\"name\":\"get_time\",\"arguments\":42}</tool_call>"},
	})
}

func TestExtractRecordsFixes(t *testing.T) {
	res := Extract(`<tool_call>{"name": "get_time", "arguments": {'city': 'Paris',}}</tool_call>`, testTools(), nil)
	if len(res.Calls) != 1 || res.Calls[0].Arguments != `{"city":"Paris"}` || len(res.Calls[0].Fixes) == 0 {
		t.Errorf("Extract = %+v, want one repaired call with fixes", res)
	}
}

func TestSchemaDecodedOnce(t *testing.T) {
	// Two untyped calls to add, tried by two envelopes: add's schema is decoded
	// once, and tools with no untyped call are never decoded.
	text := "<function=add><parameter=a>1</parameter></function><function=add><parameter=a>2</parameter></function>"
	src := newSource(text, testTools())
	if got, _ := src.accept(findQwenXML(src).calls); len(got) != 2 || got[1].Arguments != `{"a":2}` {
		t.Fatalf("accept = %+v, want two coerced calls to add", got)
	}
	first, ok := src.decoded["add"]
	if len(src.decoded) != 1 || !ok || first == nil {
		t.Fatalf("decoded schemas = %v, want add's alone", src.decoded)
	}
	src.accept(findSeed(src).calls)
	src.accept(findQwenXML(src).calls)
	if len(src.decoded) != 1 || reflect.ValueOf(src.decoded["add"]).Pointer() != reflect.ValueOf(first).Pointer() {
		t.Errorf("decoded schemas = %v, want add's decoded once", src.decoded)
	}
}

func TestExtractNoTools(t *testing.T) {
	text := `<tool_call>{"name":"get_time","arguments":{}}</tool_call>`
	res := Extract(text, nil, nil)
	if len(res.Calls) != 0 || res.Content != text || res.Envelope != "" {
		t.Errorf("Extract with no tools = %+v, want nothing", res)
	}
}

func TestFamilyHint(t *testing.T) {
	// Both a Hermes tag and a fenced block: the hint decides which is tried first.
	text := "<tool_call>{\"name\":\"get_time\",\"arguments\":{\"city\":\"Paris\"}}</tool_call>\n```json\n{\"name\":\"note\",\"arguments\":{}}\n```"
	if got := Extract(text, testTools(), nil).Envelope; got != "hermes" {
		t.Errorf("no hint: envelope %q, want hermes", got)
	}
	if got := Extract(text, testTools(), &Options{Family: "fenced_json"}).Envelope; got != "fenced_json" {
		t.Errorf("hint fenced_json: envelope %q", got)
	}
}

func TestFamilyHintModelNames(t *testing.T) {
	const (
		pythonic = `<|tool_call_start|>[note(text="hi")]<|tool_call_end|>`
		qwenXML  = "<function=get_time>\n<parameter=city>\nParis\n</parameter>\n</function>"
		dsV31    = `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>note<｜tool▁sep｜>{"text": "hi"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`
		dsml     = "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_time\">\n<｜DSML｜parameter name=\"city\" string=\"true\">Paris</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"
		hermes   = `<tool_call>{"name": "get_time", "arguments": {"city": "Paris"}}</tool_call>`
		glm      = "<tool_call>note<arg_key>text</arg_key><arg_value>hi</arg_value></tool_call>"
		kimi     = `<|tool_call_begin|>functions.note:0<|tool_call_argument_begin|>{"text": "hi"}<|tool_call_end|>`
		dsR1     = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
	)
	// Each text holds two envelopes: without a hint the first in priority order
	// wins (a call to note); the model name's family makes the other win (a call
	// to get_time).
	for _, tc := range []struct {
		family, text, without, with string
	}{
		{"Qwen3-Coder-30B-A3B-Instruct", pythonic + "\n" + qwenXML, "pythonic", "qwen3_coder_xml"}, // "coder" before "qwen"
		{"DeepSeek-V3.2-Exp", dsV31 + "\n" + dsml, "deepseek", "deepseek_dsml"},                    // "v3.2" before "deepseek"
		{"Qwen2.5-7B-Instruct", glm + "\n" + hermes, "glm", "hermes"},
		{"deepseek-r1-distill", kimi + "\n" + dsR1, "kimi_k2", "deepseek"},
		{"unknown-model", pythonic + "\n" + qwenXML, "pythonic", "pythonic"},
	} {
		if got := Extract(tc.text, testTools(), nil).Envelope; got != tc.without {
			t.Errorf("%s: no hint: envelope %q, want %q", tc.family, got, tc.without)
		}
		res := Extract(tc.text, testTools(), &Options{Family: tc.family})
		if res.Envelope != tc.with {
			t.Errorf("%s: hint: envelope %q, want %q", tc.family, res.Envelope, tc.with)
		}
		wantName := "get_time"
		if tc.with == tc.without {
			wantName = "note"
		}
		if len(res.Calls) != 1 || res.Calls[0].Name != wantName {
			t.Errorf("%s: hint: calls %+v, want one call to %s", tc.family, res.Calls, wantName)
		}
	}
}

func TestExtractorExtractCalls(t *testing.T) {
	var x Extractor
	calls, rest, env, err := x.ExtractCalls("Sure.<tool_call>{\"name\":\"get_time\",\"arguments\":{\"city\":\"Paris\"}}</tool_call>", testTools())
	want := []llm.ToolCall{{Name: "get_time", Arguments: `{"city":"Paris"}`}}
	if !reflect.DeepEqual(calls, want) || rest != "Sure." || env != "hermes" || err != nil {
		t.Errorf("ExtractCalls = %v, %q, %q, %v", calls, rest, env, err)
	}
}

// TestMaxCallsPerMessage checks the limit at its boundary in several
// envelopes: MaxCallsPerMessage calls are extracted, one more refuses the
// text (no calls, the text unchanged, an error naming the limit), also when
// a call names a tool not offered; ExtractCalls passes the error on.
func TestMaxCallsPerMessage(t *testing.T) {
	envelopes := []struct {
		name string
		call func(tool string, i int) string
	}{
		{"hermes", func(tool string, i int) string {
			return fmt.Sprintf("<tool_call>{\"name\": %q, \"arguments\": {\"city\": \"c%d\"}}</tool_call>\n", tool, i)
		}},
		{"qwen3_coder_xml", func(tool string, i int) string {
			return fmt.Sprintf("<tool_call><function=%s><parameter=city>c%d</parameter></function></tool_call>\n", tool, i)
		}},
		{"bare_json", func(tool string, i int) string {
			return fmt.Sprintf("{\"name\": %q, \"arguments\": {\"city\": \"c%d\"}}\n", tool, i)
		}},
	}
	text := func(call func(string, int) string, n int, stranger bool) string {
		var b strings.Builder
		for i := range n {
			tool := "get_time"
			if stranger && i == n/2 {
				tool = "not_offered"
			}
			b.WriteString(call(tool, i))
		}
		return b.String()
	}
	for _, env := range envelopes {
		at := Extract(text(env.call, MaxCallsPerMessage, false), testTools(), nil)
		if len(at.Calls) != MaxCallsPerMessage || at.Envelope != env.name || at.Err != nil {
			t.Errorf("%s, %d calls: got %d calls from %q, err %v", env.name, MaxCallsPerMessage, len(at.Calls), at.Envelope, at.Err)
		}
		want := fmt.Sprintf("too many tool calls: the text holds more than %d calls (%s), more than one message may hold", MaxCallsPerMessage, env.name)
		for _, stranger := range []bool{false, true} {
			in := text(env.call, MaxCallsPerMessage+1, stranger)
			res := Extract(in, testTools(), nil)
			if res.Err == nil || res.Err.Error() != want || !errors.Is(res.Err, llm.ErrTooManyCalls) || res.Calls != nil || res.Content != in || res.Envelope != env.name {
				t.Errorf("%s, %d calls (one not offered: %v): got %d calls, envelope %q, err %v; want the text refused with %q", env.name, MaxCallsPerMessage+1, stranger, len(res.Calls), res.Envelope, res.Err, want)
			}
		}
		var x Extractor
		in := text(env.call, MaxCallsPerMessage+1, false)
		calls, rest, name, err := x.ExtractCalls(in, testTools())
		if calls != nil || rest != in || name != env.name || err == nil || err.Error() != want {
			t.Errorf("%s: ExtractCalls = %d calls, envelope %q, err %v; want the refusal", env.name, len(calls), name, err)
		}
	}
}

func TestHugeInput(t *testing.T) {
	huge := strings.Repeat("<tool_call>{\"name\":[[[[", 20000) + strings.Repeat("<|tool_call>call:x{a:[", 20000)
	// Nothing here is a call to an offered tool, so nothing may be extracted
	// and the text comes back whole. (How fast it returns is measured by
	// BenchmarkCorpus, not timed here.)
	res := Extract(huge, testTools(), nil)
	if len(res.Calls) != 0 || res.Envelope != "" || res.Content != strings.TrimSpace(huge) {
		t.Errorf("extracted %d calls from envelope %q; content changed: %v", len(res.Calls), res.Envelope, res.Content != strings.TrimSpace(huge))
	}
}

// TestBracketAtTheEnd: a position at or past the end of the text holds no
// bracket, so nothing is closed there.
func TestBracketAtTheEnd(t *testing.T) {
	for _, tc := range []struct {
		text string
		i    int
		want int
	}{
		{"{}", 0, 2},
		{"{}", 2, -1},
		{"[", 1, -1},
		{"", 0, -1},
	} {
		if got := matchBracket(tc.text, tc.i); got != tc.want {
			t.Errorf("matchBracket(%q, %d) = %d, want %d", tc.text, tc.i, got, tc.want)
		}
	}
}

// TestCallsNestedToTheLimit: calls are looked for down to maxCallNesting
// levels of lists and tool_calls wrappers; deeper they are data.
func TestCallsNestedToTheLimit(t *testing.T) {
	call := map[string]any{"name": "get_time", "arguments": map[string]any{"city": "Paris"}}
	inLists := func(n int) any {
		var v any = call
		for range n {
			v = []any{v}
		}
		return v
	}
	inToolCalls := func(n int) any {
		// {"tool_calls": [...]} adds two levels: the object's list and the
		// object inside it.
		var v any = call
		for range n {
			v = map[string]any{"tool_calls": []any{v}}
		}
		return v
	}
	for _, tc := range []struct {
		name  string
		v     any
		calls int
	}{
		{"four lists", inLists(maxCallNesting), 1},
		{"five lists", inLists(maxCallNesting + 1), 0},
		{"two tool_calls wrappers", inToolCalls(maxCallNesting / 2), 1},
		{"three tool_calls wrappers", inToolCalls(maxCallNesting/2 + 1), 0},
	} {
		if got := len(jsonCalls(tc.v, false)); got != tc.calls {
			t.Errorf("%s: %d calls, want %d", tc.name, got, tc.calls)
		}
	}
}

// TestExtractorWithoutValue: a nil *Extractor detects everything from the
// text, and a non-nil one passes its Family hint on.
func TestExtractorWithoutValue(t *testing.T) {
	var x *Extractor
	calls, rest, env, err := x.ExtractCalls("Sure.<tool_call>{\"name\":\"get_time\",\"arguments\":{\"city\":\"Paris\"}}</tool_call>", testTools())
	if len(calls) != 1 || rest != "Sure." || env != "hermes" || err != nil {
		t.Errorf("nil Extractor: %v, %q, %q, %v", calls, rest, env, err)
	}
	// A hermes call and a fenced block: the hint decides which is tried first.
	text := "<tool_call>{\"name\":\"get_time\",\"arguments\":{\"city\":\"Paris\"}}</tool_call>\n```json\n{\"name\":\"note\",\"arguments\":{}}\n```"
	x = &Extractor{Options: Options{Family: "fenced_json"}}
	if _, _, env, _ := x.ExtractCalls(text, testTools()); env != "fenced_json" {
		t.Errorf("hinted Extractor: envelope %q, want fenced_json", env)
	}
}

// TestHintKeepsOtherEnvelopes: a family hint only moves one envelope first;
// a text in another envelope is still read.
func TestHintKeepsOtherEnvelopes(t *testing.T) {
	text := "<tool_call>{\"name\":\"get_time\",\"arguments\":{\"city\":\"Paris\"}}</tool_call>"
	for _, family := range []string{"mistral", "Llama-3.1-8B", "gemma"} {
		res := Extract(text, testTools(), &Options{Family: family})
		if res.Envelope != "hermes" || len(res.Calls) != 1 {
			t.Errorf("hint %q: envelope %q, %d calls; want hermes, 1", family, res.Envelope, len(res.Calls))
		}
	}
}

// TestNullTextWithoutSchema: an untyped "null" becomes null only when the
// tool's schema gives the property types and none is string; with no schema
// (or no type) it stays the text "null".
func TestNullTextWithoutSchema(t *testing.T) {
	tools := append(testTools(), llm.ToolDefinition{Name: "untyped", Parameters: json.RawMessage(`{"type":"object","properties":{"v":{"description":"anything"}}}`)})
	for _, tc := range []struct{ text, want string }{
		{"<function=note>\n<parameter=text>\nnull\n</parameter>\n</function>", `{"text":"null"}`},
		{"<function=untyped>\n<parameter=v>\nnull\n</parameter>\n</function>", `{"v":"null"}`},
		{"<function=add>\n<parameter=a>\nnull\n</parameter>\n</function>", `{"a":null}`},
	} {
		res := Extract(tc.text, tools, nil)
		if len(res.Calls) != 1 || res.Calls[0].Arguments != tc.want {
			t.Errorf("%q: calls %v, want arguments %s", tc.text, res.Calls, tc.want)
		}
	}
}

// TestExtractEdgeCases are Extract cases at the edges of each envelope's
// description: tokens at the very start or end of the text, tokens repeated,
// reasoning and code around calls, numbers kept as written.
func TestExtractEdgeCases(t *testing.T) {
	paris := []wantCall{{"get_time", `{"city":"Paris"}`}}
	hermes := `<tool_call>{"name": "get_time", "arguments": {"city": "Paris"}}</tool_call>`
	unknown := `<tool_call>{"name": "no_such_tool", "arguments": {}}</tool_call>`
	list := `<tool_calls>[{"name": "get_time", "arguments": {"city": "Paris"}}]</tool_calls>`
	runCases(t, []extractCase{
		// Numbers in a pythonic call are kept as written when they are JSON
		// numbers: no precision lost, no digits dropped.
		{"pythonic numbers kept as written", "[add(a=9007199254740993, b=0.50)]", "pythonic",
			[]wantCall{{"add", `{"a":9007199254740993,"b":0.50}`}}, ""},
		{"pythonic negative number kept", "[add(a=-9007199254740993, b=9.50)]", "pythonic",
			[]wantCall{{"add", `{"a":-9007199254740993,"b":9.50}`}}, ""},
		{"pythonic number with a plus sign", "[add(a=+5, b=.5)]", "pythonic",
			[]wantCall{{"add", `{"a":5,"b":0.5}`}}, ""},
		{"pythonic number that is no JSON keeps its digits", "[add(a=1, b=.25)]", "pythonic",
			[]wantCall{{"add", `{"a":1,"b":0.25}`}}, ""},

		// ATEM: the call block's tokens are cut with the calls, also when the
		// block opens the text or a stray closing token comes first.
		{"atem block at the start", `<atem:function_calls><atem:invoke name="add"><atem:parameter name="a">1</atem:parameter></atem:invoke></atem:function_calls>`, "atem",
			[]wantCall{{"add", `{"a":1}`}}, ""},
		{"atem stray closing token first", "</atem:function_calls>\nDone.\n" + `<atem:function_calls><atem:invoke name="add"><atem:parameter name="a">1</atem:parameter></atem:invoke></atem:function_calls>`, "atem",
			[]wantCall{{"add", `{"a":1}`}}, "Done."},

		// Plain prose ending in blank lines holds no call.
		{"prose with trailing blank lines", "Sure, nothing to call.\n\n  ", "", nil, "Sure, nothing to call.\n\n  "},
		{"prose ending in the words function call", "I will not make a function call", "", nil, "I will not make a function call"},
		{"mistral token at the very end", "Nothing to do [TOOL_CALLS]", "", nil, "Nothing to do [TOOL_CALLS]"},
		{"harmony recipient at the very end", "to=functions.get_time", "", nil, "to=functions.get_time"},

		// Fenced blocks.
		{"fenced json at the start", "```json\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n```", "fenced_json", paris, ""},
		{"unlabelled fence", "Calling:\n```\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n```", "fenced_json", paris, "Calling:"},
		{"python fence is code", "```python\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n```", "", nil,
			"```python\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n```"},
		{"empty fence before a call", "```json\n```\n```json\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n```", "fenced_json", paris, "```json\n```"},
		{"example fence then a real one", "For example:\n```json\n{\"name\": \"add\", \"arguments\": {\"a\": 1}}\n```\nNow:\n```json\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n```", "fenced_json", paris,
			"For example:\n```json\n{\"name\": \"add\", \"arguments\": {\"a\": 1}}\n```\nNow:"},
		{"code fence then a call", "```python\nprint(1)\n```\n" + hermes, "hermes", paris, "```python\nprint(1)\n```"},

		// Inline code.
		{"inline code at the start", "`" + hermes + "` is how a call looks.", "", nil, "`" + hermes + "` is how a call looks."},
		{"inline code after a fence", "```python\nx = 1\n```\nUse `" + hermes + "` to call.", "", nil, "```python\nx = 1\n```\nUse `" + hermes + "` to call."},
		{"inline code after a lone backtick", "a stray `\nthen `" + hermes + "` quoted", "", nil, "a stray `\nthen `" + hermes + "` quoted"},
		{"backtick opening the text left open on its line", "` is a backtick\nthen `" + hermes + "` quoted", "", nil, "` is a backtick\nthen `" + hermes + "` quoted"},
		{"call between inline code", "`x` " + hermes + " `y`", "hermes", paris, "`x`  `y`"},
		{"two inline spans around a call", "Use `a` then\n" + hermes + "\nthen `b`.", "hermes", paris, "Use `a` then\n\nthen `b`."},

		// Reasoning around calls.
		{"call between two reasoning blocks", "<think>first</think>\n" + hermes + "\n<think>second</think>", "hermes", paris, "<think>first</think>\n\n<think>second</think>"},
		{"call inside the first of two reasoning blocks", "<think>maybe " + hermes + "</think>\nNo call after all.\n<think>done</think>", "", nil,
			"<think>maybe " + hermes + "</think>\nNo call after all.\n<think>done</think>"},
		{"call before reasoning", hermes + "\n<think>reflect</think>", "hermes", paris, "<think>reflect</think>"},
		{"call before a lone closer is reasoning", hermes + "\n</think>\nThe answer.", "", nil, hermes + "\n</think>\nThe answer."},
		{"doubled closer", "<think>a</think></think>\n" + hermes, "hermes", paris, "<think>a</think></think>"},
		{"pythonic after reasoning", "<think>plan</think>\n[get_time(city='Paris')]", "pythonic", paris, "<think>plan</think>"},
		{"unclosed think ends at a call right after it", "<think>" + hermes, "hermes", paris, "<think>"},
		{"unclosed think ends at the first call tag", "<think>hmm\n" + hermes + "\nI could also write [TOOL_CALLS] but will not.", "hermes", paris,
			"<think>hmm\n\nI could also write [TOOL_CALLS] but will not."},
		{"closer after a leading newline", "\n</think>\n<think>more</think>\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}", "bare_json", paris,
			"</think>\n<think>more</think>"},
		{"opener after a leading newline", "\n<think>a</think>\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n<think>b</think>\nDone.", "bare_json", paris,
			"<think>a</think>\n\n<think>b</think>\nDone."},
		{"analysis message at the start", "<|channel|>analysis<|message|>I could write " + hermes + " later.<|end|>", "", nil,
			"<|channel|>analysis<|message|>I could write " + hermes + " later.<|end|>"},
		{"short call at the end of an analysis message", "<|start|>assistant<|channel|>analysis<|message|>Maybe [TOOL_CALLS]get_time{}<|end|>", "", nil,
			"<|start|>assistant<|channel|>analysis<|message|>Maybe [TOOL_CALLS]get_time{}<|end|>"},
		{"call at the end of an analysis message", "<|start|>assistant<|channel|>analysis<|message|>Maybe " + hermes + "<|end|>", "", nil,
			"<|start|>assistant<|channel|>analysis<|message|>Maybe " + hermes + "<|end|>"},

		// Hermes tags repeated, cut off or followed by text.
		{"hermes tag repeated three times", "<tool_call>\n<tool_call>\n" + hermes, "hermes", paris, ""},
		{"hermes tag repeated without space", "<tool_call>" + hermes, "hermes", paris, ""},
		{"hermes repeated tag then a second call", "<tool_call>\n" + hermes + "\nand then\n" + hermes, "hermes",
			[]wantCall{{"get_time", `{"city":"Paris"}`}, {"get_time", `{"city":"Paris"}`}}, "and then"},
		{"command r close cut to two bytes", `<|START_ACTION|>[{"tool_name": "get_time", "parameters": {"city": "Paris"}}]<|`, "command_r", paris, ""},
		{"hermes name line without arguments", "<user>get_time\n", "", nil, "<user>get_time\n"},

		// Examples.
		{"example marker opening the line", "Example: " + hermes, "", nil, "Example: " + hermes},
		{"example marker right before the call", "e.g." + hermes, "", nil, "e.g." + hermes},
		{"marker in capitals", "SYNTAX: " + hermes, "", nil, "SYNTAX: " + hermes},
		{"marker inside brackets is no prose", "[see the example above] " + hermes, "hermes", paris, "[see the example above]"},
		{"marker inside a quoted string in brackets", `{"note": "x] for example"} ` + hermes, "hermes", paris, `{"note": "x] for example"}`},
		{"quoted brace inside a value before the marker", `{"close": "}"} is an example: ` + hermes, "", nil, `{"close": "}"} is an example: ` + hermes},
		{"inline code after six backticks", "`````` and `" + hermes + "`", "", nil, "`````` and `" + hermes + "`"},
		{"marker in an earlier call's tags", "<function=note><parameter=format>x</parameter></function> <function=get_time><parameter=city>Paris</parameter></function>", "qwen3_coder_xml",
			[]wantCall{{"note", `{"format":"x"}`}, {"get_time", `{"city":"Paris"}`}}, ""},

		// Kimi K2.
		{"kimi begin token doubled", `<|tool_call_begin|><|tool_call_begin|>functions.get_time:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>`, "kimi_k2", paris, "<|tool_call_begin|>"},
		{"kimi call without a name is dropped", "<|tool_call_begin|><|tool_call_argument_begin|>\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n<|tool_call_end|>", "", nil,
			"<|tool_call_begin|><|tool_call_argument_begin|>\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n<|tool_call_end|>"},

		// DeepSeek.
		{"deepseek call at the start", `<｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜>`, "deepseek", paris, ""},
		{"deepseek two calls", `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>add<｜tool▁sep｜>{"a": 1, "b": 2}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`, "deepseek",
			[]wantCall{{"get_time", `{"city":"Paris"}`}, {"add", `{"a":1,"b":2}`}}, ""},
		{"deepseek begin token doubled", `<｜tool▁call▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜>`, "deepseek", paris, "<｜tool▁call▁begin｜>"},
		{"deepseek without a type before the separator", "<｜tool▁call▁begin｜><｜tool▁sep｜>get_time\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜>", "deepseek", paris, ""},

		{"deepseek call with no name is dropped whole", "<｜tool▁call▁begin｜>function<｜tool▁sep｜>\n```json\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n```<｜tool▁call▁end｜>", "", nil,
			"<｜tool▁call▁begin｜>function<｜tool▁sep｜>\n```json\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n```<｜tool▁call▁end｜>"},

		// gpt-oss (harmony).
		{"harmony recipient opening the text", `to=functions.get_time<|message|>{"city": "Paris"}<|call|>`, "gpt_oss", paris, ""},
		{"harmony call from its start token", `<|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{"city": "Paris"}<|call|>`, "gpt_oss", paris, ""},
		{"harmony text after the call", `<|start|>assistant<|channel|>commentary to=functions.get_time<|message|>{"city": "Paris"}<|call|> Waiting for the result.<|end|>`, "gpt_oss", paris,
			"Waiting for the result.<|end|>"},

		// Mistral.
		{"mistral name call followed by text", `[TOOL_CALLS]get_time{"city": "Paris"} Let me check.`, "mistral", paris, "Let me check."},

		// A candidate dropped by an earlier envelope does not hide a call
		// that merely touches it.
		{"dropped hermes call then a call list", unknown + list, "apriel", paris, unknown},
		{"call list then a dropped hermes call", list + unknown, "apriel", paris, unknown},

		// Pythonic and Gemma edges.
		{"olmo3 line that is only a name", "<function_calls>\nget_time\n</function_calls>", "", nil, "<function_calls>\nget_time\n</function_calls>"},
		{"olmo3 call left open", "<function_calls>\nadd(a=1\n</function_calls>", "", nil, "<function_calls>\nadd(a=1\n</function_calls>"},
		{"olmo3 string left open", "<function_calls>\nget_time(city='Paris\n</function_calls>", "", nil, "<function_calls>\nget_time(city='Paris\n</function_calls>"},
		{"gemma empty string", `<|tool_call>call:get_time{city:<|"|><|"|>}<tool_call|>`, "gemma", []wantCall{{"get_time", `{"city":""}`}}, ""},
		{"example fence of six backticks", "For example: ``````\n```json\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n```", "fenced_json", paris, "For example: ``````"},

		// Apertus: a list of {"name": {arguments}} objects, one key each.
		{"apertus", `<|tools_prefix|>[{"get_time": {"city": "Paris"}}]<|tools_suffix|>`, "apertus", paris, ""},
		{"apertus two calls", `<|tools_prefix|>[{"get_time": {"city": "Paris"}}, {"add": {"a": 1, "b": 2}}]<|tools_suffix|>`, "apertus",
			[]wantCall{{"get_time", `{"city":"Paris"}`}, {"add", `{"a":1,"b":2}`}}, ""},
		{"apertus object of two names is no call", `<|tools_prefix|>[{"get_time": {"city": "Paris"}, "add": {"a": 1}}]<|tools_suffix|>`, "", nil,
			`<|tools_prefix|>[{"get_time": {"city": "Paris"}, "add": {"a": 1}}]<|tools_suffix|>`},

		// Empty values are values.
		{"qwen3 xml empty parameter", "<function=note><parameter=text></parameter></function>", "qwen3_coder_xml", []wantCall{{"note", `{"text":""}`}}, ""},
		{"glm empty value", "<tool_call>note<arg_key>text</arg_key><arg_value></arg_value></tool_call>", "glm", []wantCall{{"note", `{"text":""}`}}, ""},
		{"minimax empty value", `<minimax:tool_call><invoke name="note"><parameter name="text"></parameter></invoke></minimax:tool_call>`, "minimax", []wantCall{{"note", `{"text":""}`}}, ""},
		{"qwen3 xml call without parameters closed by its wrapper", "<tool_call><function=note></tool_call>\nDone.", "qwen3_coder_xml", []wantCall{{"note", `{}`}}, "Done."},
		{"qwen3 xml parameters left open end at the next one", "<function=note><parameter=title><parameter=text>hi</function>", "qwen3_coder_xml",
			[]wantCall{{"note", `{"text":"hi","title":""}`}}, ""},
		{"qwen3 xml value ending in an opening tag's text", "<function=note><parameter=text>a<parameter=</parameter></function>", "qwen3_coder_xml",
			[]wantCall{{"note", `{"text":"a<parameter="}`}}, ""},
		{"qwen3 xml parameter without a name", "<function=get_time><parameter=>x</parameter><parameter=city>Paris</parameter></function>", "qwen3_coder_xml",
			[]wantCall{{"get_time", `{"":"x","city":"Paris"}`}}, ""},
		{"functionary empty recipient then a call", ">>>\nLet me check.\n>>>get_time\n{\"city\": \"Paris\"}", "functionary", paris, ">>>\nLet me check."},
		{"qwen3 xml function left open inside its wrapper", "<tool_call>\n<function=note>\n<parameter=text>\nhi\n</parameter>\n</tool_call>\nDone.", "qwen3_coder_xml",
			[]wantCall{{"note", `{"text":"hi"}`}}, "Done."},
		{"qwen3 xml parameter with a value left open before the next", "<function=note><parameter=title>Hello<parameter=text>hi</function>", "qwen3_coder_xml",
			[]wantCall{{"note", `{"text":"hi","title":"Hello"}`}}, ""},
		{"qwen3 xml long value left open before the next", "<function=note><parameter=title>" + strings.Repeat("long text ", 5) + "<parameter=text>hi</function>", "qwen3_coder_xml",
			[]wantCall{{"note", `{"text":"hi","title":"` + strings.Repeat("long text ", 5) + `"}`}}, ""},
		{"functionary two calls", ">>>get_time\n{\"city\": \"Paris\"}\n>>>add\n{\"a\": 1, \"b\": 2}", "functionary",
			[]wantCall{{"get_time", `{"city":"Paris"}`}, {"add", `{"a":1,"b":2}`}}, ""},
		{"functionary empty message to all then a call", ">>>all\n>>>get_time\n{\"city\": \"Paris\"}", "functionary", paris, ">>>all"},
		{"glm argument without a key name", "<tool_call>get_time<arg_key></arg_key><arg_value>x</arg_value><arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>", "glm",
			[]wantCall{{"get_time", `{"":"x","city":"Paris"}`}}, ""},
		{"glm value longer than the text before it", "<tool_call>note<arg_key>text</arg_key><arg_value>" + strings.Repeat("long text ", 8) + "</arg_value><arg_key>title</arg_key><arg_value>t</arg_value></tool_call>", "glm",
			[]wantCall{{"note", `{"text":"` + strings.Repeat("long text ", 8) + `","title":"t"}`}}, ""},
		{"dsml string false is JSON, true is text", `<｜DSML｜invoke name="note"><｜DSML｜parameter name="n" string="false">3</｜DSML｜parameter><｜DSML｜parameter name="s" string="true">3</｜DSML｜parameter></｜DSML｜invoke>`, "deepseek_dsml",
			[]wantCall{{"note", `{"n":3,"s":"3"}`}}, ""},
		{"dsml value ending in a parameter token's text", `<｜DSML｜invoke name="note"><｜DSML｜parameter name="text" string="true">see <｜DSML｜parameter</｜DSML｜parameter></｜DSML｜invoke>`, "deepseek_dsml",
			[]wantCall{{"note", `{"text":"see <｜DSML｜parameter"}`}}, ""},
		{"minicpm cdata value then another parameter", `<function name="note"><param name="text"><![CDATA[a]]></param><param name="title">t</param></function>`, "minicpm",
			[]wantCall{{"note", `{"text":"a","title":"t"}`}}, ""},
		{"minimax value longer than the text before it", `<minimax:tool_call><invoke name="note"><parameter name="text">` + strings.Repeat("long text ", 8) + `</parameter></invoke></minimax:tool_call>`, "minimax",
			[]wantCall{{"note", `{"text":"` + strings.Repeat("long text ", 8) + `"}`}}, ""},
		{"forge call with an empty tool name hides its arguments", "<tool><tool_name></tool_name>\n<arguments>\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n</arguments>", "", nil,
			"<tool><tool_name></tool_name>\n<arguments>\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n</arguments>"},
		{"minicpm empty cdata", `<function name="note"><param name="text"><![CDATA[]]></param></function>`, "minicpm", []wantCall{{"note", `{"text":""}`}}, ""},
	})
}
