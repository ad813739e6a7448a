package replay

import (
	"slices"

	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

// How replay compares and redacts the reasoning a tape keeps (see
// tape/reasoning.go for what is kept).

// sameReasoning reports whether a and b hold the same opaque blocks in the
// same order, each compared whole; blocks of text alone are not compared.
func sameReasoning(a, b []llm.Reasoning) bool {
	i, j := 0, 0
	for {
		for i < len(a) && !opaque(a[i]) {
			i++
		}
		for j < len(b) && !opaque(b[j]) {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if a[i] != b[j] {
			return false
		}
		i, j = i+1, j+1
	}
}

// resentDiff explains a request whose added messages differ from the
// recorded ones (want) only in that the answer served, which it sends
// back first, has its opaque parts changed (a signature altered or
// dropped, a signed block missing): a diff of the answer served (-)
// against the one sent back (+), labelled so. It returns "" for any other difference.
func resentDiff(want []llm.Message, st step) string {
	if st.answer == nil || len(st.added) == 0 {
		return ""
	}
	sent := st.added[0]
	if sent.Role != llm.RoleAssistant || echoes(sent, *st.answer) || !sameVisible(sent, *st.answer) ||
		len(want) != len(st.added)-1 || !slices.EqualFunc(want, st.added[1:], equalMessage) {
		return ""
	}
	served, back := (&tape.RequestSummary{New: []llm.Message{*st.answer}}).String(), (&tape.RequestSummary{New: []llm.Message{sent}}).String()
	d := "(they render the same; they differ in characters YAML does not show)\n"
	if h := udiff.Hunks(served, back); h != "" {
		d = "--- served\n+++ sent back\n" + h
	}
	return "new: the answer served was sent back with its reasoning or call signatures changed (they must come back byte for byte):\n" + d
}

// sameVisible reports whether a and b differ at most in their reasoning,
// their call signatures and the bytes (not the JSON values) of their calls'
// arguments.
func sameVisible(a, b llm.Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.ToolCallID != b.ToolCallID || a.Name != b.Name || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i, c := range a.ToolCalls {
		d := b.ToolCalls[i]
		if c.ID != d.ID || c.Name != d.Name || !sameArguments(c.Arguments, d.Arguments) {
			return false
		}
	}
	return true
}

// opaque reports whether r is a block the vendor wants back byte for byte,
// one with a signature or redacted data: the blocks a tape keeps in a
// request's messages, and the ones replay compares.
func opaque(r llm.Reasoning) bool { return r.Signature != "" || r.Redacted != "" }
