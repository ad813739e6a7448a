package agent_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// A flaky lookup is retried with backoff on a virtual clock (no wall time
// passes), then the model answers.
func ExampleRun() {
	failures := 2
	weather := tools.Func(tools.Spec{Name: "weather", Safety: tools.Safety{Idempotent: true}},
		func(ctx context.Context, call tools.Call) (*tools.Result, error) {
			if failures > 0 {
				failures--
				return tools.TransientFailure("the weather service is busy"), nil
			}
			return tools.Success("sunny, 21C"), nil
		})
	reg := tools.NewRegistry(nil)
	reg.MustRegister(weather)

	turn := 0
	model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		turn++
		if turn == 1 {
			return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "weather", Arguments: `{}`})}, nil
		}
		last, _ := req.LastMessage()
		return &llm.Response{Message: llm.AssistantMessage("It is " + last.Content + ".")}, nil
	})

	run, err := agent.Run(context.Background(), model, reg, []llm.Message{llm.UserMessage("Weather?")}, &agent.Options{
		Retry: &agent.RetryPolicy{Attempts: 3, Backoff: 100 * time.Millisecond},
		Clock: clock.NewVirtual(time.Time{}),
		Observer: func(e agent.Event) {
			if e.Kind == agent.EventRetry {
				fmt.Printf("retry after attempt %d, waiting %s\n", e.Attempt, e.Backoff)
			}
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(run.Termination.Reason, run.Turns[0].Calls[0].Retries(), run.FinalText())
	// Output:
	// retry after attempt 1, waiting 100ms
	// retry after attempt 2, waiting 200ms
	// final_text 2 It is sunny, 21C.
}
