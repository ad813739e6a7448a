package harness

import (
	"fmt"
	"strings"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

// saidHolds reports whether text satisfies the expectation.
func saidHolds(se *scenario.SaidExpect, text string) bool {
	switch {
	case se.Equals != nil && se.IgnoreCase:
		return strings.EqualFold(text, *se.Equals)
	case se.Equals != nil:
		return text == *se.Equals
	case se.Contains != nil && se.IgnoreCase:
		return strings.Contains(strings.ToLower(text), strings.ToLower(*se.Contains))
	case se.Contains != nil:
		return strings.Contains(text, *se.Contains)
	}
	return se.Matches.MatchString(text)
}

// saidDescribe says what was expected: `to contain "x" (ignoring case)`.
func saidDescribe(se *scenario.SaidExpect) string {
	var s string
	switch {
	case se.Equals != nil:
		s = fmt.Sprintf("to equal %q", *se.Equals)
	case se.Contains != nil:
		s = fmt.Sprintf("to contain %q", *se.Contains)
	default:
		s = fmt.Sprintf("to match %q", strings.TrimPrefix(se.Matches.String(), "(?i)"))
	}
	if se.IgnoreCase {
		s += " (ignoring case)"
	}
	return s
}

// assistantTexts returns the text of every assistant message of the run that
// has any, in order (text-written calls already taken out).
func assistantTexts(run *agent.RunResult) []string {
	var out []string
	if run == nil {
		return out
	}
	for _, m := range run.Messages {
		if m.Role == llm.RoleAssistant && m.Content != "" {
			out = append(out, m.Content)
		}
	}
	return out
}

// checkSaid returns a message per said item that no assistant text holds,
// naming file and line.
func checkSaid(s *scenario.Scenario, said []scenario.SaidExpect, run *agent.RunResult) []*fileerr.Error {
	texts := assistantTexts(run)
	var out []*fileerr.Error
	for i, se := range said {
		found := false
		for _, t := range texts {
			found = found || saidHolds(&se, t)
		}
		if found {
			continue
		}
		quoted := make([]string, len(texts))
		for k, t := range texts {
			quoted[k] = fmt.Sprintf("%q", clip(t))
		}
		among := "the run has no assistant text"
		if len(texts) > 0 {
			among = fmt.Sprintf("found none among %d: %s", len(texts), strings.Join(quoted, ", "))
		}
		key := fmt.Sprintf("said[%d]", i)
		out = append(out, failed(s, se.Line, "expect."+key, key, nil, fmt.Sprintf("expected an assistant message %s, %s", saidDescribe(&se), among)))
	}
	return out
}
