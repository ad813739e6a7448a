package harness

import (
	"context"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

// TestRunWithModelIgnoresTape pins RunOptions.Model: the given model answers
// and the tape is never served.
func TestRunWithModelIgnoresTape(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\n"+minimal), "live.yaml", "live")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		calls++
		return &llm.Response{Message: llm.AssistantMessage("live answer"), FinishReason: llm.FinishStop}, nil
	})
	o, err := Run(context.Background(), s, &RunOptions{Model: model})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || o.Final != "live answer" {
		t.Fatalf("got %d model calls and final %q; want 1 call and %q", calls, o.Final, "live answer")
	}
}
