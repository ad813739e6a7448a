package replay

import (
	"context"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// TestConcurrentRequestsMatchByContent: two requests an agent sends at
// once (parallel sub-agents) are answered by the entries recorded for
// what they ask, whichever arrives first; the answers do not depend on
// the order (issue 39, item 7). A request that matches no entry still
// diverges.
func TestConcurrentRequestsMatchByContent(t *testing.T) {
	sub := func(task string) *llm.Request {
		return &llm.Request{Messages: []llm.Message{llm.SystemMessage("You are a sub-agent."), llm.UserMessage(task)}}
	}
	answer := func(s string) *llm.Response {
		return &llm.Response{Message: llm.AssistantMessage(s), FinishReason: llm.FinishStop}
	}
	// Recorded in the order the calls happened to take then.
	rec := NewRecorder(llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		last, _ := req.LastMessage()
		return answer("answer to " + last.Content), nil
	}), nil)
	for _, task := range []string{"Summarise a.txt", "Summarise b.txt"} {
		if _, err := rec.Generate(context.Background(), sub(task)); err != nil {
			t.Fatal(err)
		}
	}
	tp := rec.Tape()
	for _, order := range [][]string{{"Summarise a.txt", "Summarise b.txt"}, {"Summarise b.txt", "Summarise a.txt"}} {
		m := NewModel(tp, nil)
		for _, task := range order {
			resp, err := m.Generate(context.Background(), sub(task))
			if err != nil {
				t.Fatalf("order %q: %s: %v", order, task, err)
			}
			if resp.Message.Content != "answer to "+task {
				t.Errorf("order %q: %s was answered %q", order, task, resp.Message.Content)
			}
		}
		if err := m.Unused(); err != nil {
			t.Errorf("order %q: %v", order, err)
		}
	}
	m := NewModel(tp, nil)
	if _, err := m.Generate(context.Background(), sub("Summarise c.txt")); err == nil {
		t.Error("a request no entry recorded was answered")
	}
}
