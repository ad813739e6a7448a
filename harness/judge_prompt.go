package harness

import (
	"fmt"
	"strings"

	"github.com/tapeloop/tapeloop/scenario"
)

// JudgedText is the text an expect.judge item of s grades in the outcome
// o: the final text for on scenario.JudgeFinal; for JudgeTranscript, one
// line (or block) per message of the conversation: the scenario's input
// and each user turn as "ROLE: content", each answer's text as
// "assistant: text", each call as "call NAME ARGUMENTS" followed by
// "result NAME: RESULT".
func JudgedText(s *scenario.Scenario, o *Outcome, on string) string {
	if on != scenario.JudgeTranscript {
		return o.Final
	}
	var b strings.Builder
	for _, m := range s.Input {
		fmt.Fprintf(&b, "%s: %s\n", m.Role, m.Content)
	}
	for _, t := range o.Turns {
		if t.User != nil {
			fmt.Fprintf(&b, "user: %s\n", t.User.Content)
		}
		if t.Response != nil && t.Response.Message.Content != "" {
			fmt.Fprintf(&b, "assistant: %s\n", t.Response.Message.Content)
		}
		for _, c := range t.Calls {
			fmt.Fprintf(&b, "call %s %s\nresult %s: %s\n", c.Name(), c.Arguments(), c.Name(), c.Result())
		}
	}
	return b.String()
}
