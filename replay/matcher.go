package replay

import (
	"slices"
	"strings"

	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
)

// Matcher decides whether an actual request matches the one recorded on the
// tape. Match returns nil on a match, and otherwise an error saying why,
// ideally with a diff; a Model wraps it in a *DivergenceError. Recorded is
// never nil (entries without a recorded request are not checked) and, from a
// Model, has its Tools sorted; actual is never nil.
type Matcher interface {
	Match(recorded *tape.RequestSummary, actual *llm.Request) error
}

// MatcherFunc adapts a function to the Matcher interface.
type MatcherFunc func(recorded *tape.RequestSummary, actual *llm.Request) error

// Match calls f.
func (f MatcherFunc) Match(recorded *tape.RequestSummary, actual *llm.Request) error {
	return f(recorded, actual)
}

// DefaultMatcher checks everything the tape recorded, each key only when it
// is there: the offered tool names (as a set), the last message and the whole
// message list. A recorded key is never ignored: replay fails closed. Its
// zero value is ready to use; it is what a Model uses when no Matcher is
// given. Tapes recorded with RecorderOptions.RecordMessages hold the message
// list.
type DefaultMatcher struct{}

// Match reports a mismatch of tools, last message or messages as a
// *MismatchError.
func (DefaultMatcher) Match(recorded *tape.RequestSummary, actual *llm.Request) error {
	return match(recorded, actual)
}

// MismatchError is a matcher's account of how a request differs from the
// recorded one.
type MismatchError struct {
	// Fields names the request fields that differ, in canonical order:
	// tools, last_message, messages.
	Fields []string
	// Diff is a unified diff of the recorded request (-) against the actual
	// one (+), both rendered as canonical YAML.
	Diff string
}

// Error returns "<fields> differ(s) (- recorded, + actual):" and the diff.
func (e *MismatchError) Error() string {
	verb := " differs"
	if len(e.Fields) > 1 {
		verb = " differ"
	}
	return strings.Join(e.Fields, ", ") + verb + " (- recorded, + actual):\n" + strings.TrimSuffix(e.Diff, "\n")
}

func match(rec *tape.RequestSummary, req *llm.Request) error {
	// want and got hold the same fields: those recorded and checked.
	want, got := &tape.RequestSummary{}, &tape.RequestSummary{}
	var fields []string
	if rec.Tools != nil {
		// A Model's recorded tools are already sorted; a caller's need not be.
		want.Tools = rec.Tools
		if !slices.IsSorted(want.Tools) {
			want.Tools = slices.Sorted(slices.Values(rec.Tools))
		}
		got.Tools = req.ToolNames() // a fresh slice, ours to sort
		slices.Sort(got.Tools)
		if !slices.Equal(want.Tools, got.Tools) {
			fields = append(fields, "tools")
		}
	}
	if rec.LastMessage != nil {
		want.LastMessage = rec.LastMessage
		got.LastMessage = &llm.Message{} // "none" renders as an empty role
		if last, ok := req.LastMessage(); ok {
			got.LastMessage = &last
		}
		if !equalMessage(*want.LastMessage, *got.LastMessage) {
			fields = append(fields, "last_message")
		}
	}
	if rec.Messages != nil {
		want.Messages = rec.Messages
		got.Messages = req.Messages
		if got.Messages == nil {
			got.Messages = []llm.Message{}
		}
		if !slices.EqualFunc(want.Messages, got.Messages, equalMessage) {
			fields = append(fields, "messages")
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return &MismatchError{Fields: fields, Diff: divergenceDiff(want.String(), got.String())}
}

// divergenceDiff returns a unified diff of the recorded text (-) against the
// actual one (+), or "" when they are equal. What each Redacted of the
// recording stands for in actual (redact.Hidden: one secret's token, found
// by the recorded text around it) is shown redacted: a replay whose policy
// knows less than the recording's did (record had --redact-env) never
// prints the value the recording hid.
func divergenceDiff(recorded, actual string) string {
	for _, v := range redact.Hidden(recorded, actual) {
		actual = strings.ReplaceAll(actual, v, redact.Redacted)
	}
	hunks := udiff.Hunks(recorded, actual)
	if hunks == "" {
		return ""
	}
	return "--- recorded\n+++ actual\n" + hunks
}

// equalMessage compares messages field by field; nil and empty tool calls
// are equal. Calls compare with their signatures, and reasoning by its
// opaque blocks (sameReasoning).
func equalMessage(a, b llm.Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.ToolCallID == b.ToolCallID &&
		a.Name == b.Name && slices.Equal(a.ToolCalls, b.ToolCalls) && sameReasoning(a.Reasoning, b.Reasoning)
}
