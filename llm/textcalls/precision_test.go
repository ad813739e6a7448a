package textcalls

import (
	"fmt"
	"testing"
)

// mentionEnvelopes are one get_time call in each of several envelopes, written
// for these tests.
var mentionEnvelopes = []struct{ name, call string }{
	{"hermes", `<tool_call>{"name": "get_time", "arguments": {"city": "Quito"}}</tool_call>`},
	{"glm", `<tool_call>get_time<arg_key>city</arg_key><arg_value>Quito</arg_value></tool_call>`},
	{"minimax", `<minimax:tool_call><invoke name="get_time"><parameter name="city">Quito</parameter></invoke></minimax:tool_call>`},
	{"minicpm", `<function name="get_time"><param name="city">Quito</param></function>`},
	{"hunyuan", `<tool_calls>[{"name": "get_time", "arguments": {"city": "Quito"}}]</tool_calls>`},
	{"gigachat", `function call{"name": "get_time", "arguments": {"city": "Quito"}}`},
	{"mistral", `[TOOL_CALLS]get_time{"city": "Quito"}`},
	{"functionary", `<function=get_time>{"city": "Quito"}</function>`},
	{"python_tag", `<|python_tag|>{"name": "get_time", "parameters": {"city": "Quito"}}`},
	{"qwen3 coder", "<tool_call>\n<function=get_time>\n<parameter=city>\nQuito\n</parameter>\n</function>\n</tool_call>"},
	{"nemotron", `<TOOLCALL>[{"name": "get_time", "arguments": {"city": "Quito"}}]</TOOLCALL>`},
	{"bare json", `{"name": "get_time", "arguments": {"city": "Quito"}}`},
	{"hunyuan hy3", "<tool_calls><tool_call>get_time<tool_sep><arg_key>city</arg_key><arg_value>Quito</arg_value></tool_call></tool_calls>"},
	{"inkling", `<|message_model|>get_time<|content_invoke_tool_json|>{"name":"get_time","args":{"city":"Quito"}}<|end_message|>`},
	{"gigachat 3.5", `<｜GCML｜tool_calls><｜GCML｜invoke name="get_time"><｜GCML｜parameter name="city" string="true">Quito</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>`},
}

// mentionFrames put a call where no chat template puts one: quoted, inside a
// sentence, in a blockquote, in HTML code, or introduced as a sample.
var mentionFrames = []struct{ name, frame string }{
	{"double quoted", `The reply "%s" would have asked for the clock.`},
	{"single quoted", `Writing '%s' asks for the clock.`},
	{"curly quoted", "The manual shows “%s” as the call."},
	{"inside a sentence", "If the clock mattered I would send %s and wait for it."},
	{"negated in a sentence", "I will not run %s today."},
	{"blockquote", "The documentation says:\n> %s\nso that is how it is spelt."},
	{"html pre", "<pre>%s</pre>"},
	{"html code", "Use <code>%s</code> to ask."},
	{"like this", "You ask for the time like this: %s"},
	{"sample line", "Sample reply:\n%s"},
	{"conditional", "To learn the hour I would use %s"},
	{"here is how", "Here's how:\n\n%s\n\nThat ends it."},
	{"for reference", "For reference, the call was: %s"},
	{"sentence goes on after it", "%s is what the clock tool expects."},
	{"punctuation glued after it", "The request reads %s."},
	{"explained on the next line", "%s\nThat is the syntax the template wants."},
	{"shown on the next line", "%s\n\nThis shows the shape of a request."},
}

// TestMentionedCallNotExtracted: a call written where no chat template puts it
// is a mention, not a call; Extract returns none and the text unchanged.
// Before the position rule 101 of these texts (110 then, without qwen3 coder)
// yielded a call.
func TestMentionedCallNotExtracted(t *testing.T) {
	invented, total := 0, 0
	for _, fr := range mentionFrames {
		for _, env := range mentionEnvelopes {
			text := fmt.Sprintf(fr.frame, env.call)
			total++
			res := Extract(text, testTools(), nil)
			if len(res.Calls) != 0 || res.Content != text {
				invented++
				t.Errorf("%s / %s: Extract(%q) = %s %+v; want no call", fr.name, env.name, text, res.Envelope, res.Calls)
			}
		}
	}
	t.Logf("invented %d of %d mentions", invented, total)
}

// TestCallInPlaceStillExtracted: the same envelopes where templates put them,
// after or before a sentence, are still calls, and the text around them stays.
func TestCallInPlaceStillExtracted(t *testing.T) {
	frames := []struct{ frame, content string }{
		{"%s", ""},
		{"Checking the clock.\n%s", "Checking the clock."},
		{"Checking the clock. %s", "Checking the clock."},
		{"Checking:%s", "Checking:"},
		{"%s\nI will report back.", "I will report back."},
		{"Let me use the clock:\n%s", "Let me use the clock:"},
		{"%s\nThis may take a moment.", "This may take a moment."},
	}
	for _, fr := range frames {
		for _, env := range mentionEnvelopes {
			sameLine := fr.content != "" && fr.frame != "%s\nI will report back." && fr.frame != "Checking the clock.\n%s"
			if sameLine && env.name == "bare json" {
				continue // bare JSON is a call only on lines of its own
			}
			text := fmt.Sprintf(fr.frame, env.call)
			res := Extract(text, testTools(), nil)
			if len(res.Calls) != 1 || res.Calls[0].Name != "get_time" || res.Calls[0].Arguments != `{"city":"Quito"}` || res.Content != fr.content {
				t.Errorf("%s: Extract(%q) = %s %+v content %q; want get_time Quito, content %q", env.name, text, res.Envelope, res.Calls, res.Content, fr.content)
			}
		}
	}
}
