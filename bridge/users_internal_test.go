package bridge

import (
	"fmt"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// TestUserAnswersTheReportedFinal: the user (a model, in a conversation)
// answers what the agent reported with Run.Final, and, before the agent
// reports one, the model's last text.
func TestUserAnswersTheReportedFinal(t *testing.T) {
	r := &Run{traffic: &traffic{log: []exchange{
		{resp: &llm.Response{Message: llm.AssistantMessage("the model's text")}},
		{err: fmt.Errorf("a failed call")},
	}}}
	if got := r.answer(); got != "the model's text" {
		t.Errorf("with no final reported, the user answers %q, want the model's last text", got)
	}
	r.Final("the agent's answer")
	if got := r.answer(); got != "the agent's answer" {
		t.Errorf("with a final reported, the user answers %q, want it", got)
	}
}

// TestConversationNeedsALaterUserTurn: a tape whose only user turn is its
// first entry ends the input and is no conversation; a user turn after
// the first entry makes one.
func TestConversationNeedsALaterUserTurn(t *testing.T) {
	user := &llm.Message{Role: llm.RoleUser, Content: "hi"}
	answer := &llm.Response{Message: llm.AssistantMessage("hello")}
	for _, tc := range []struct {
		name string
		tape []tape.Entry
		want bool
	}{
		{"a user turn first", []tape.Entry{{User: user}, {Response: answer}}, false},
		{"a user turn after an answer", []tape.Entry{{Response: answer}, {User: user}, {Response: answer}}, true},
		{"no user turn", []tape.Entry{{Response: answer}}, false},
	} {
		if got := conversation(&scenario.Scenario{Tape: tc.tape}, &runOptions{}); got != tc.want {
			t.Errorf("%s: conversation %v, want %v", tc.name, got, tc.want)
		}
	}
}
