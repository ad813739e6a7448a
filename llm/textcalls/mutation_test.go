package textcalls

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// The tests in this file pin behaviours that mutation testing (issue 28) found
// untested: each case is written from the envelope's public description, and
// a small change to the code it covers makes it fail.

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

// TestPythonNames: a Python-style call's name and keywords are identifiers:
// a letter or _ first, then letters, digits and _; a call's name may also be
// dotted (brave_search.call) or hold a - after its first character.
func TestPythonNames(t *testing.T) {
	letter := func(b byte) bool { return b == '_' || ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z') }
	digit := func(b byte) bool { return '0' <= b && b <= '9' }
	for c := 0; c < 256; c++ {
		b := byte(c)
		for _, dotted := range []bool{false, true} {
			// b first: a name only when it is a letter or _.
			p := &pyParser{text: string([]byte{b}) + "x"}
			want := ""
			if letter(b) {
				want = string([]byte{b}) + "x"
			}
			if got := p.ident(dotted); got != want {
				t.Errorf("ident(%q, dotted %v) = %q, want %q", p.text, dotted, got, want)
			}
			// b second: it continues the name when a letter, digit or _, or,
			// dotted, a . or -.
			p = &pyParser{text: "x" + string([]byte{b})}
			want = "x"
			if letter(b) || digit(b) || (dotted && (b == '.' || b == '-')) {
				want = p.text
			}
			if got := p.ident(dotted); got != want {
				t.Errorf("ident(%q, dotted %v) = %q, want %q", p.text, dotted, got, want)
			}
		}
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

// TestPythonLiteralNestingLimit: a pythonic argument may nest lists and
// dicts maxLiteralDepth deep; deeper, the call is refused rather than read
// with unbounded recursion.
func TestPythonLiteralNestingLimit(t *testing.T) {
	lists := func(n int) string { return strings.Repeat("[", n) + "1" + strings.Repeat("]", n) }
	dicts := func(n int) string { return strings.Repeat("{'k': ", n) + "1" + strings.Repeat("}", n) }
	for _, tc := range []struct {
		name, value string
		ok          bool
	}{
		{"lists at the limit", lists(maxLiteralDepth), true},
		{"lists past the limit", lists(maxLiteralDepth + 1), false},
		{"dicts at the limit", dicts(maxLiteralDepth), true},
		{"dicts past the limit", dicts(maxLiteralDepth + 1), false},
	} {
		res := Extract("[note(text="+tc.value+")]", testTools(), nil)
		if got := len(res.Calls) == 1; got != tc.ok {
			t.Errorf("%s: extracted %v, want %v (envelope %q)", tc.name, got, tc.ok, res.Envelope)
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
