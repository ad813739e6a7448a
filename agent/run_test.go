package agent_test

import (
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
)

// TestFinalTextSkipsLaterMessages: FinalText is the last assistant message
// even when other messages follow it.
func TestFinalTextSkipsLaterMessages(t *testing.T) {
	r := &agent.RunResult{Messages: []llm.Message{
		llm.UserMessage("q"),
		{Role: llm.RoleAssistant, Content: "first"},
		llm.UserMessage("more"),
		{Role: llm.RoleAssistant, Content: "answer"},
		llm.UserMessage("thanks"),
	}}
	if got := r.FinalText(); got != "answer" {
		t.Errorf("FinalText = %q, want %q", got, "answer")
	}
}

// TestCallRecordRetries: every attempt after the first is a retry.
func TestCallRecordRetries(t *testing.T) {
	for attempts, want := range []int{0, 0, 1, 2} {
		c := &agent.CallRecord{Attempts: make([]agent.Attempt, attempts)}
		if got := c.Retries(); got != want {
			t.Errorf("%d attempts: Retries = %d, want %d", attempts, got, want)
		}
	}
}
