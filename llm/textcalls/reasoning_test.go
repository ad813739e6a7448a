package textcalls

import (
	"reflect"
	"testing"
)

// TestEachReasoningWrapperHidesCalls writes the same call inside each
// reasoning wrapper the package documents: none is extracted. The call
// outside any wrapper is (the control that keeps the cases honest).
func TestEachReasoningWrapperHidesCalls(t *testing.T) {
	const call = `<tool_call>{"name":"get_time","arguments":{"city":"Lyon"}}</tool_call>`
	if res := Extract(call+"\nIt is late.", testTools(), nil); len(res.Calls) != 1 {
		t.Fatalf("control: the call outside reasoning gave %v, want one call", res.Calls)
	}
	for _, w := range []struct{ open, close string }{
		{"<think>", "</think>"},
		{"<thinking>", "</thinking>"},
		{"<seed:think>", "</seed:think>"},
		{"[THINK]", "[/THINK]"},
		{"<|START_THINKING|>", "<|END_THINKING|>"},
	} {
		t.Run(w.open, func(t *testing.T) {
			text := w.open + "I could call " + call + w.close + "\nIt is late."
			if res := Extract(text, testTools(), nil); len(res.Calls) != 0 || res.Content != text {
				t.Errorf("calls %v, content %q; want no call and the text unchanged", res.Calls, res.Content)
			}
		})
	}
	t.Run("gpt-oss analysis channel", func(t *testing.T) {
		text := "<|start|>assistant<|channel|>analysis<|message|>" + call + "<|end|><|start|>assistant<|channel|>final<|message|>It is late.<|return|>"
		if res := Extract(text, testTools(), nil); len(res.Calls) != 0 || res.Content != text {
			t.Errorf("calls %v, content %q; want no call and the text unchanged", res.Calls, res.Content)
		}
	})
}

// TestUnclosedThinkEndsAtAStrongOpener: an unclosed <think> hides the calls
// written in it up to the first call tag (here <|tool_call_start|>), and the
// call after that tag is extracted, as the package doc says.
func TestUnclosedThinkEndsAtAStrongOpener(t *testing.T) {
	text := "<think>plan\n<|python_tag|>{\"name\":\"get_time\",\"parameters\":{\"city\":\"Lyon\"}}\n" +
		"<|tool_call_start|>[get_time(city=\"Paris\")]<|tool_call_end|>"
	res := Extract(text, testTools(), nil)
	var got []wantCall
	for _, c := range res.Calls {
		got = append(got, wantCall{c.Name, c.Arguments})
	}
	if want := []wantCall{{"get_time", `{"city":"Paris"}`}}; res.Envelope != "pythonic" || !reflect.DeepEqual(got, want) {
		t.Errorf("envelope %q, calls %v; want pythonic %v (Lyon is in the reasoning)", res.Envelope, got, want)
	}
}

// TestFunctionsPrefixOnNames: a call naming functions.get_time calls the
// offered get_time.
func TestFunctionsPrefixOnNames(t *testing.T) {
	res := Extract(`<tool_call>{"name":"functions.get_time","arguments":{"city":"Paris"}}</tool_call>`, testTools(), nil)
	if len(res.Calls) != 1 || res.Calls[0].Name != "get_time" || res.Calls[0].Arguments != `{"city":"Paris"}` {
		t.Errorf("calls %v, want get_time {\"city\":\"Paris\"}", res.Calls)
	}
}
