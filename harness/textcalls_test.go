package harness

import (
	"context"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
)

// TestDeclaredTextCallFamily: a call written in a family the scenario
// declares runs; a call in a format text_calls.formats leaves out is the
// final text.
func TestDeclaredTextCallFamily(t *testing.T) {
	const head = "format: tapeloop/v1\nsetup:\n  tools: [echo]\n  loop:\n    text_calls:\n" +
		"      families: [{name: bolt, start: \"@@call \", end: \" @@\", args: xml}]\n"
	cases := []struct {
		name, formats, content string
		wantCalls              int
		wantEnd                string
	}{
		{"declared family", "", "Echoing.\\n@@call echo<text>hi</text> @@", 1, "final_text"},
		{"declared family listed", "      formats: [bolt]\n", "@@call echo<text>hi</text> @@", 1, "final_text"},
		{"known format left out", "      formats: [bolt]\n", "<tool_call>{\\\"name\\\": \\\"echo\\\", \\\"arguments\\\": {\\\"text\\\": \\\"hi\\\"}}</tool_call>", 0, "final_text"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text := head + tc.formats + "input:\n  - {role: user, content: go}\ntape:\n" +
				"  - response: {content: \"" + tc.content + "\"}\n  - response: {content: done}\n"
			s, err := scenario.Parse([]byte(text), "s.yaml", "s")
			if err != nil {
				t.Fatal(err)
			}
			o, err := Run(context.Background(), s, nil)
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			for _, turn := range o.Turns {
				for _, c := range turn.Calls {
					calls++
					if c.Name() != "echo" {
						t.Errorf("call %+v, want echo", c)
					}
				}
			}
			if calls != tc.wantCalls || string(o.Termination) != tc.wantEnd {
				t.Errorf("ended %s after %d calls (%s); want %s after %d", o.Termination, calls, o.Error, tc.wantEnd, tc.wantCalls)
			}
		})
	}
}
