package report

import (
	"fmt"
	"strings"
)

// Text renders the transcript as plain text, turn by turn: what JUnit's
// system-out carries.
func (t *Transcript) Text() string {
	if t == nil {
		return ""
	}
	var b strings.Builder
	for _, turn := range t.Turns {
		fmt.Fprintf(&b, "turn %d\n", turn.Index)
		for _, u := range turn.User {
			writeField(&b, "  ", "user", u)
		}
		for _, a := range turn.AsyncResults {
			writeField(&b, "  ", fmt.Sprintf("async result %s %s", a.ID, a.Name), a.Result)
		}
		if turn.Content != "" {
			writeField(&b, "  ", "model", turn.Content)
		}
		if turn.ExtractedFrom != "" {
			writeField(&b, "  ", "calls extracted from", turn.ExtractedFrom)
		}
		for _, c := range turn.Calls {
			fmt.Fprintf(&b, "  call %s %s %s\n", c.ID, c.Name, c.Arguments)
			if c.ShowExecuted() {
				writeField(&b, "    ", "executed", c.Executed)
			}
			if len(c.Repairs) > 0 {
				writeField(&b, "    ", "repairs", strings.Join(c.Repairs, ", "))
			}
			for _, co := range c.Coercions {
				fmt.Fprintf(&b, "    coerced %s from %s to %s\n", co.Path, co.From, co.To)
			}
			if c.Attempts > 1 {
				fmt.Fprintf(&b, "    attempts: %d\n", c.Attempts)
			}
			if c.Memoized {
				b.WriteString("    memoized\n")
			}
			if c.Failure != "" {
				writeField(&b, "    ", "failure", c.Failure)
			}
			writeField(&b, "    ", "result", c.Result)
		}
		if turn.Diff != "" {
			writeField(&b, "  ", "diff", turn.Diff)
		}
	}
	if t.TerminationError != "" {
		writeField(&b, "", "error", t.TerminationError)
	}
	writeField(&b, "", "final", t.Final)
	return b.String()
}

// writeField writes "label: value", with a multi-line value on its own
// lines, indented under the label.
func writeField(b *strings.Builder, indent, label, value string) {
	value = strings.TrimRight(value, "\n")
	if !strings.Contains(value, "\n") {
		fmt.Fprintf(b, "%s%s: %s\n", indent, label, value)
		return
	}
	fmt.Fprintf(b, "%s%s:\n", indent, label)
	for _, line := range strings.Split(value, "\n") {
		fmt.Fprintf(b, "%s  %s\n", indent, line)
	}
}
