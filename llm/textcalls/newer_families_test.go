package textcalls

import "testing"

// TestExtractNewerFamilies covers issue 44's families with this package's own
// tools and data, each case written from the family's chat template: where
// the template puts the call, what it is taken from, and where the engines
// are strict.
func TestExtractNewerFamilies(t *testing.T) {
	lima := []wantCall{{"get_time", `{"city":"Lima"}`}}
	none := func(name, text string) extractCase { return extractCase{name, text, "", nil, text} }
	runCases(t, []extractCase{
		// GLM-4.5/4.6: the name right after <tool_call>, then key/value tag
		// pairs, one a line; several calls one after another; values that
		// hold JSON are typed by the schema.
		{"glm two calls after text", "Two look-ups.\n<tool_call>get_time\n<arg_key>city</arg_key>\n<arg_value>Lima</arg_value>\n</tool_call>\n<tool_call>add\n<arg_key>a</arg_key>\n<arg_value>3</arg_value>\n</tool_call>",
			"glm", []wantCall{{"get_time", `{"city":"Lima"}`}, {"add", `{"a":3}`}}, "Two look-ups."},
		{"glm json value", "<tool_call>config<arg_key>cfg</arg_key><arg_value>{\"level\": \"4\"}</arg_value></tool_call>", "glm", []wantCall{{"config", `{"cfg":{"level":4}}`}}, ""},
		{"glm array value", "<tool_call>todo<arg_key>items</arg_key><arg_value>[5, 6]</arg_value></tool_call>", "glm", []wantCall{{"todo", `{"items":[5,6]}`}}, ""},
		none("glm tool not offered", "<tool_call>launch<arg_key>x</arg_key><arg_value>1</arg_value></tool_call>"),
		none("glm value without key", "<tool_call>get_time<arg_value>Lima</arg_value></tool_call>"),
		none("glm call in reasoning", "<think>perhaps <tool_call>get_time<arg_key>city</arg_key><arg_value>Lima</arg_value></tool_call></think>It is noon."),
		none("glm call quoted", "The reply \"<tool_call>get_time<arg_key>city</arg_key><arg_value>Lima</arg_value></tool_call>\" would ask for the clock."),
		// MiniMax-M2: <invoke> blocks inside <minimax:tool_call>; several
		// invokes in one block.
		{"minimax two invokes", "<minimax:tool_call>\n<invoke name=\"get_time\">\n<parameter name=\"city\">Lima</parameter>\n</invoke>\n<invoke name=\"toggle\">\n<parameter name=\"on\">true</parameter>\n</invoke>\n</minimax:tool_call>",
			"minimax", []wantCall{{"get_time", `{"city":"Lima"}`}, {"toggle", `{"on":true}`}}, ""},
		{"minimax after text", "Looking it up.\n<minimax:tool_call>\n<invoke name=\"get_time\">\n<parameter name=\"city\">Lima</parameter>\n</invoke>\n</minimax:tool_call>", "minimax", lima, "Looking it up."},
		none("minimax invoke outside the block", "The page has markup like\n<invoke name=\"get_time\"><parameter name=\"city\">Lima</parameter></invoke>\nin it."),
		none("minimax cut off inside a value", "<minimax:tool_call>\n<invoke name=\"get_time\">\n<parameter name=\"city\">Lima"),
		// MiniCPM: <function name="x"><param name="k">v</param></function>.
		{"minicpm typed", "<function name=\"add\"><param name=\"a\">2</param><param name=\"b\">0.25</param></function>", "minicpm", []wantCall{{"add", `{"a":2,"b":0.25}`}}, ""},
		none("minicpm in a blockquote", "The log reads:\n> <function name=\"add\"><param name=\"a\">2</param></function>"),
		// Hunyuan-A13B: a JSON list in <tool_calls>, text before it kept.
		{"hunyuan two calls", "Done. <tool_calls>[{\"name\": \"get_time\", \"arguments\": {\"city\": \"Lima\"}}, {\"name\": \"add\", \"arguments\": {\"a\": 1}}]</tool_calls>",
			"apriel", []wantCall{{"get_time", `{"city":"Lima"}`}, {"add", `{"a":1}`}}, "Done."},
		none("hunyuan inside a sentence", "I could send <tool_calls>[{\"name\": \"get_time\", \"arguments\": {\"city\": \"Lima\"}}]</tool_calls> but the time is known."),
		// GigaChat: <|function_call|> and a JSON call.
		{"gigachat token", "<|function_call|>{\"name\": \"get_time\", \"arguments\": {\"city\": \"Lima\"}}", "gigachat", lima, ""},
		none("gigachat in html code", "Send <code>function call{\"name\": \"get_time\", \"arguments\": {\"city\": \"Lima\"}}</code> to ask."),
	})
}
