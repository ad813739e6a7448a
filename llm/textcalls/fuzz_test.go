package textcalls

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// FuzzExtract checks that Extract never panics, that every call names an offered
// tool and that its arguments are a JSON object.
func FuzzExtract(f *testing.F) {
	seeds := []string{
		"<tool_call>{\"name\":\"get_time\",\"arguments\":{\"city\":\"Paris\"}}</tool_call>",
		"<function=add><parameter=a>1</parameter></function>",
		"[TOOL_CALLS]get_time[ARGS]{\"city\":\"x\"}",
		"<|tool_call>call:config{cfg:{level:2}}<tool_call|>",
		"<|tool_call_start|>[add(a=1, b='x')]<|tool_call_end|>",
		"<think>x</think>```json\n{\"name\":\"note\",\"arguments\":{}}\n```",
		"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{}\n```<｜tool▁call▁end｜>",
		"<|channel|>commentary to=functions.get_time<|message|>{}",
		"<function name=\"get_time\"><param name=\"city\"><![CDATA[Par]]></param></function>",
		"<tool><tool_name>get_time</tool_name><arguments>{\"city\": \"Pa",
		"<seed:tool_call><function=get_time><parameter=city>Paris</parameter></function></seed:tool_call>",
		"[TOOL_CALLS]add[CALL_ID]1[ARGS]{\"a\": 1}",
		// The envelopes of issue 17.
		"<function_calls>\nget_time(city='Paris', x=None, y=true)\nadd()\n</function_calls>",
		"<|python_start|>[get_time(city='x'), add(a=2)]",
		"function call{\"name\": \"add\", \"arguments\": {\"a\": 1}}",
		" to=add<|message|><atem:function_calls><atem:invoke name=\"add\"><atem:parameter name=\"a\">3</atem:parameter></atem:invoke></atem:function_calls><|call|>",
		"<user>\nget_time\n{\"city\": \"Paris\"}\n</user>",
		"<tool_call>\n<tool_call>{\"name\":\"add\",\"arguments\":{}}",
		"<think>hm\n<tool_call>{\"name\":\"add\",\"arguments\":{}}</tool_call>",
		"Sure.\n{\"name\": \"add\", \"parameters\": {\"a\": 1}}\nDone.",
		"[{\"name\": \"add\", \"arguments\": {\"a\": 1}}, {\"name\": \"add\"",
		"<|tool▁calls▁begin|><|tool▁call▁begin|>function<|tool▁sep|>add\n```json\n{}\n```<|tool▁call▁end|>",
		"The information format: <tool_call>{\"name\":\"note\",\"arguments\":{\"format\":1}}</tool_call>",
		// The envelopes of issue 27.
		"<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"add\"><steptml:parameter name=\"a\">1</steptml:parameter></steptml:invoke><｜tool_call_end｜>",
		"<|action_start|><|plugin|>\n{\"name\": \"add\", \"parameters\": {\"a\": 1}}<|action_end|>",
		"<longcat_tool_call>{\"name\": \"add\", \"arguments\": {}}</longcat_tool_call>",
		"<function_call> {\"name\": \"add\", \"arguments\": {\"a\": 1}}\n<function_call> {\"name\": \"note\"",
		"functools[{\"name\": \"add\", \"arguments\": {}}]",
		"<|tool_call_start|>[{\"name\": \"add\", \"arguments\": {\"a\": 1}}]<|tool_call_end|>",
		"<tool_call>{\"name\": \"add\", \"arguments\": {\"a\": 1, b}}</tool_call>",
		// Openers repeated with no closer anywhere (once quadratic; see BenchmarkHostileRepeat).
		strings.Repeat("function call{", 200),
		strings.Repeat(" functools[", 200),
	}
	for _, s := range seeds {
		f.Add(s)
	}
	if recs, err := os.ReadFile(corpusPath()); err == nil {
		var r corpusRecord
		for _, line := range splitLines(recs) {
			if json.Unmarshal(line, &r) == nil {
				f.Add(r.Text)
			}
		}
	}
	tools := testTools()
	offered := map[string]bool{}
	for _, t := range tools {
		offered[t.Name] = true
	}
	// Declared families, one of each argument encoding, read the same text.
	declared := &Options{Families: []Family{
		{Name: "d_json", Start: "<<c>>", End: "<</c>>", Args: "json"},
		{Name: "d_xml", Start: "<<x>>", End: "<</x>>", Args: "xml"},
		{Name: "d_py", Start: "<<p>>", Args: "pythonic"},
		{Name: "d_open", Start: "%%", Args: "xml"},
	}}
	f.Add("<<x>>add<a>1</a><b>2</b><</x>>")
	f.Add("<<x>><invoke name=\"get_time\"><arg_key>city</arg_key><arg_value><![CDATA[x]]></arg_value></invoke><</x>>")
	f.Add("<<p>>add(a=1)")
	f.Add("%%add <a>1</a>\nAdded.")
	f.Fuzz(func(t *testing.T, text string) {
		for _, opts := range []*Options{nil, declared} {
			checkExtract(t, Extract(text, tools, opts), offered)
		}
	})
}

// checkExtract checks what holds of every result: calls name offered tools
// and carry a JSON object, and an envelope is named only with calls.
func checkExtract(t *testing.T, res Result, offered map[string]bool) {
	t.Helper()
	{
		for _, c := range res.Calls {
			if !offered[c.Name] {
				t.Errorf("call names %q, not offered", c.Name)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(c.Arguments), &m); err != nil || m == nil {
				t.Errorf("arguments %q are not a JSON object: %v", c.Arguments, err)
			}
		}
		if len(res.Calls) == 0 && res.Envelope != "" {
			t.Errorf("envelope %q without calls", res.Envelope)
		}
	}
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		out = append(out, b[:i])
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}
