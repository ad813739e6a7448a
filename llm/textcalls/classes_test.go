package textcalls

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// classTools are testTools plus lookup(city string, required; days integer
// or null; strict boolean) and now().
func classTools() []llm.ToolDefinition {
	return append(testTools(),
		llm.ToolDefinition{Name: "lookup", Parameters: json.RawMessage(`{"type":"object","required":["city"],"properties":{` +
			`"city":{"type":"string"},"days":{"type":["integer","null"]},"strict":{"type":"boolean"}}}`)},
		llm.ToolDefinition{Name: "now", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)},
	)
}

// TestExtractClasses covers the envelopes and guards met in other inference
// engines' test suites (issue 17), several inputs a class.
func TestExtractClasses(t *testing.T) {
	paris := []wantCall{{"get_time", `{"city":"Paris"}`}}
	oslo := wantCall{"lookup", `{"city":"Oslo","days":null,"strict":true}`}
	hermesParis := `<tool_call>{"name": "get_time", "arguments": {"city": "Paris"}}</tool_call>`
	cases := []struct {
		class string
		extractCase
	}{
		// OLMo-3: <function_calls> around Python-style calls, one a line.
		{"olmo3", extractCase{"python and json literals", "<function_calls>\nlookup(city='Oslo', days=None, strict=true)\nnow()\n</function_calls>", "olmo3",
			[]wantCall{oslo, {"now", `{}`}}, ""}},
		{"olmo3", extractCase{"prose before", "Let me look.\n<function_calls>\nlookup(city=\"Oslo\", days=null, strict=True)\n</function_calls>", "olmo3",
			[]wantCall{oslo}, "Let me look."}},
		{"olmo3", extractCase{"unclosed", "<function_calls>\nget_time(city='Paris')\nadd(a=1, b=2.5)", "olmo3",
			[]wantCall{{"get_time", `{"city":"Paris"}`}, {"add", `{"a":1,"b":2.5}`}}, ""}},
		{"olmo3", extractCase{"not a call line", "<function_calls>\nI would call get_time here\n</function_calls>", "", nil,
			"<function_calls>\nI would call get_time here\n</function_calls>"}},

		// Llama 4: <|python_start|>[calls]<|python_end|>, the end tag optional.
		{"llama4", extractCase{"closed", "<|python_start|>[get_time(city='Paris'), add(a=1, b=2)]<|python_end|>", "pythonic",
			[]wantCall{{"get_time", `{"city":"Paris"}`}, {"add", `{"a":1,"b":2}`}}, ""}},
		{"llama4", extractCase{"no end tag", "Checking.<|python_start|>[now()]", "pythonic", []wantCall{{"now", `{}`}}, "Checking."}},

		{"llama4", extractCase{"one call without brackets", "<|python_start|>lookup(city='Oslo', days=None, strict=true)<|python_end|>", "pythonic", []wantCall{oslo}, ""}},

		// GigaChat: function call{...} without a role separator.
		{"gigachat", extractCase{"bare", `function call{"name": "get_time", "arguments": {"city": "Paris"}}`, "gigachat", paris, ""}},
		{"gigachat", extractCase{"after text", "One moment.\nfunction call{\"name\": \"add\", \"arguments\": {\"a\": 2}}", "gigachat",
			[]wantCall{{"add", `{"a":2}`}}, "One moment."}},
		{"gigachat", extractCase{"prose mention", "I will make a function call to get the time.", "", nil, "I will make a function call to get the time."}},

		// ATEM channel envelope: JSON-typed values, strings verbatim.
		{"atem", extractCase{"one call", ` to=get_time<|message|><atem:function_calls><atem:invoke name="get_time"><atem:parameter name="city">Paris</atem:parameter></atem:invoke></atem:function_calls>`,
			"atem", paris, ""}},
		{"atem", extractCase{"typed values", `to=lookup<|message|><atem:function_calls><atem:invoke name="lookup"><atem:parameter name="city">Oslo</atem:parameter>` +
			`<atem:parameter name="days">null</atem:parameter><atem:parameter name="strict">true</atem:parameter></atem:invoke></atem:function_calls>`,
			"atem", []wantCall{oslo}, ""}},
		{"atem", extractCase{"typed without a schema, strings verbatim", `<|message|><atem:function_calls><atem:invoke name="note"><atem:parameter name="text">  two  words </atem:parameter>` +
			`<atem:parameter name="n">3</atem:parameter><atem:parameter name="l">[1, "x"]</atem:parameter></atem:invoke></atem:function_calls>`,
			"atem", []wantCall{{"note", `{"l":[1,"x"],"n":3,"text":"  two  words "}`}}, ""}},
		{"atem", extractCase{"several messages, recipient missing", `Sure. to=get_time<|message|><atem:function_calls><atem:invoke name="get_time"><atem:parameter name="city">Paris</atem:parameter></atem:invoke></atem:function_calls><|call|>` +
			`<atem:function_calls><atem:invoke name="add"><atem:parameter name="a">1</atem:parameter></atem:invoke></atem:function_calls>`,
			"atem", []wantCall{{"get_time", `{"city":"Paris"}`}, {"add", `{"a":1}`}}, "Sure."}},

		{"atem", extractCase{"full header", "<|start|>assistant<|channel|>commentary to=get_time<|message|><atem:function_calls>\n<atem:invoke name=\"get_time\">\n" +
			"<atem:parameter name=\"city\">Paris</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|call|>", "atem", paris, ""}},

		// Laguna-style variants.
		{"laguna", extractCase{"user wrapper", `<user>{"name": "get_time", "arguments": {"city": "Paris"}}</user>`, "hermes", paris, ""}},
		{"laguna", extractCase{"user wrapper, name line", "<user>\nget_time\n{\"city\": \"Paris\"}\n</user>", "hermes", paris, ""}},
		{"laguna", extractCase{"user wrapper around a tag", "<user>\n" + hermesParis + "\n</user>", "hermes", paris, ""}},
		{"laguna", extractCase{"user wrapper around xml", "<user>\n<function=get_time>\n<parameter=city>\nParis\n</parameter>\n</function>\n</user>", "qwen3_coder_xml", paris, ""}},
		{"laguna", extractCase{"name on its own line", "<tool_call>\nget_time\n{\"city\": \"Paris\"}\n</tool_call>", "hermes", paris, ""}},
		{"laguna", extractCase{"repeated opening tag", "<tool_call>\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", "hermes", paris, ""}},
		{"laguna", extractCase{"repeated opening tag, xml", "<tool_call>\n<tool_call>\n<function=get_time>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>", "qwen3_coder_xml", paris, ""}},
		{"laguna", extractCase{"xml call in an unclosed think", "<think>Need the time.\n<function=get_time>\n<parameter=city>\nParis\n</parameter>\n</function>", "qwen3_coder_xml", paris, "<think>Need the time."}},
		{"laguna", extractCase{"mistral call in an unclosed think", "<think>Reasoning\n[TOOL_CALLS]get_time[ARGS]{\"city\": \"Paris\"}", "mistral", paris, "<think>Reasoning"}},
		{"laguna", extractCase{"call in an unclosed think", "<think>I need the time.\n" + hermesParis, "hermes", paris, "<think>I need the time."}},
		{"laguna", extractCase{"bare json call in prose", "Let me check.\n{\"name\": \"get_time\", \"parameters\": {\"city\": \"Paris\"}}\nOne moment.", "bare_json", paris,
			"Let me check.\n\nOne moment."}},
		{"laguna", extractCase{"unclosed call list", `[{"name": "get_time", "arguments": {"city": "Paris"}}, {"name": "add", "arguments": {"a": 1}}`, "bare_json",
			[]wantCall{{"get_time", `{"city":"Paris"}`}, {"add", `{"a":1}`}}, ""}},
		{"laguna", extractCase{"old deepseek v3 with ascii bars", "<|tool▁calls▁begin|><|tool▁call▁begin|>function<|tool▁sep|>get_time\n```json\n{\"city\": \"Paris\"}\n```<|tool▁call▁end|><|tool▁calls▁end|>",
			"deepseek", paris, ""}},

		// The prose guard matches whole words, never inside a call.
		{"prose guard", extractCase{"information", "Here is the information you need:\n" + hermesParis, "hermes", paris, "Here is the information you need:"}},
		{"prose guard", extractCase{"formatted", "I formatted the request: " + hermesParis, "hermes", paris, "I formatted the request:"}},
		{"prose guard", extractCase{"format key in an earlier call", `<tool_call>{"name": "note", "arguments": {"format": "json"}}</tool_call> ` + hermesParis, "hermes",
			[]wantCall{{"note", `{"format":"json"}`}, {"get_time", `{"city":"Paris"}`}}, ""}},
		{"prose guard", extractCase{"a capitalised word holding a marker", "Formatting done. " + hermesParis, "hermes", paris, "Formatting done."}},
		{"prose guard", extractCase{"whole word still guards", "Use this syntax: " + hermesParis, "", nil, "Use this syntax: " + hermesParis}},
		{"prose guard", extractCase{"example after a call", hermesParis + " For example, <tool_call>{\"name\": \"now\", \"arguments\": {}}</tool_call>", "hermes",
			paris, "For example, <tool_call>{\"name\": \"now\", \"arguments\": {}}</tool_call>"}},

		// Strict where engines are.
		{"strict", extractCase{"two objects, the first no call", "{\"amount\": 1}\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}", "", nil,
			"{\"amount\": 1}\n{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}"}},
		{"strict", extractCase{"two objects in a tag, the first no call", `<tool_call>{"x": 1}{"name": "get_time", "arguments": {}}</tool_call>`, "", nil,
			`<tool_call>{"x": 1}{"name": "get_time", "arguments": {}}</tool_call>`}},
		{"strict", extractCase{"cut off missing a required argument", "<tool_call>\n<function=lookup>\n<parameter=days>\n3\n</parameter>\n", "", nil,
			"<tool_call>\n<function=lookup>\n<parameter=days>\n3\n</parameter>\n"}},
		{"strict", extractCase{"cut off atem missing a required argument", `<atem:function_calls><atem:invoke name="lookup"><atem:parameter name="days">3</atem:parameter>`, "", nil,
			`<atem:function_calls><atem:invoke name="lookup"><atem:parameter name="days">3</atem:parameter>`}},
		{"strict", extractCase{"cut off hermes missing a required argument", `<tool_call>{"name": "lookup", "arguments": {"days": 3}}`, "", nil,
			`<tool_call>{"name": "lookup", "arguments": {"days": 3}}`}},
		{"strict", extractCase{"name line and arguments followed by text", "<tool_call>\nget_time\n{\"city\": \"Paris\"} or Oslo\n</tool_call>", "", nil,
			"<tool_call>\nget_time\n{\"city\": \"Paris\"} or Oslo\n</tool_call>"}},
		{"strict", extractCase{"cut off with the required argument", "<function=lookup>\n<parameter=city>\nOslo\n</parameter>\n", "qwen3_coder_xml",
			[]wantCall{{"lookup", `{"city":"Oslo"}`}}, ""}},
	}
	for _, tc := range cases {
		t.Run(tc.class+"/"+tc.name, func(t *testing.T) {
			res := Extract(tc.text, classTools(), nil)
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

// TestWordCharacters: a marker such as "format" counts only as a whole word;
// the bytes that continue a word are ASCII letters, digits, _ and every
// non-ASCII byte (a letter of another script).
func TestWordCharacters(t *testing.T) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		want := b == '_' || b >= 0x80 ||
			strings.IndexByte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", b) >= 0
		if got := isWordChar(b); got != want {
			t.Errorf("isWordChar(%q) = %v, want %v", b, got, want)
		}
	}
}

// TestToolNameCharacters: a tool name is 1 to 256 bytes of ASCII letters,
// digits and _ - . : /; any other character makes the text no tool name.
func TestToolNameCharacters(t *testing.T) {
	const allowed = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:/"
	for c := 0; c < 128; c++ {
		name := "x" + string(rune(c)) + "y"
		want := strings.IndexByte(allowed, byte(c)) >= 0
		if got := isIdent(name); got != want {
			t.Errorf("isIdent(%q) = %v, want %v", name, got, want)
		}
	}
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"", false},
		{"a", true},
		{strings.Repeat("a", 256), true},
		{strings.Repeat("a", 257), false},
		{"héllo", false},
	} {
		if got := isIdent(tc.name); got != tc.want {
			t.Errorf("isIdent(%d bytes %.10q) = %v, want %v", len(tc.name), tc.name, got, tc.want)
		}
	}
}
