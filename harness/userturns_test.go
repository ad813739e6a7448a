package harness_test

import (
	"testing"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
)

// TestWithUserTurnsAfterRetriedCalls: a model call retried by the loop is
// recorded as its error entries then its response; the next user turn goes
// after the response, not after the first error.
func TestWithUserTurnsAfterRetriedCalls(t *testing.T) {
	u1, u2 := llm.UserMessage("first"), llm.UserMessage("second")
	r1 := &llm.Response{Message: llm.AssistantMessage("one")}
	r2 := &llm.Response{Message: llm.AssistantMessage("two")}
	o := &harness.Outcome{Turns: []harness.TurnOutcome{{Index: 1, User: &u1}, {Index: 2, User: &u2}}}
	recorded := []tape.Entry{{Error: "overloaded"}, {Response: r1}, {Error: "rate limited"}, {Response: r2}}
	got := o.WithUserTurns(recorded, redact.Default())
	want := []string{"user first", "error overloaded", "response one", "user second", "error rate limited", "response two"}
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d", len(got), len(want))
	}
	for i, e := range got {
		var s string
		switch {
		case e.User != nil:
			s = "user " + e.User.Content
		case e.Response != nil:
			s = "response " + e.Response.Message.Content
		default:
			s = "error " + e.Error
		}
		if s != want[i] {
			t.Errorf("entry %d: %s, want %s", i, s, want[i])
		}
	}
}
