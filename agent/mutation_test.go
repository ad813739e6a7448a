package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
)

// Tests that close mutants scripts/mutation found alive: each checks a
// behaviour the other tests left open.

// TestModelRetryAfterAtTheLimit: a Retry-After exactly at MaxRetryAfter is
// still honoured; only a longer one makes the run give up.
func TestModelRetryAfterAtTheLimit(t *testing.T) {
	log := &eventLog{}
	model := script(step{err: providerErr(llm.ErrRateLimited, 429, time.Minute)}, final("done"))
	run, err := agent.Run(t.Context(), model, newRegistry(t), nil, &agent.Options{
		Clock: virtual(), Observer: log.observe,
		ModelRetry: &agent.ModelRetryPolicy{Attempts: 2, Backoff: time.Second, MaxRetryAfter: time.Minute},
	})
	if err != nil || run.FinalText() != "done" || model.count() != 2 {
		t.Fatalf("run ended %v (%v) after %d requests; want final text after 2", run.Termination.Reason, err, model.count())
	}
	if r := log.ofKind(agent.EventModelRetry); len(r) != 1 || r[0].Backoff != time.Minute {
		t.Errorf("model_retry events %+v; want one waiting 1m", r)
	}
}

// TestModelResponseOnFirstAttempt: a model response that needed no retry
// carries no attempt number (Attempt is set only after a retry).
func TestModelResponseOnFirstAttempt(t *testing.T) {
	log := &eventLog{}
	mustRun(t, script(final("done")), newRegistry(t), &agent.Options{Clock: virtual(), Observer: log.observe,
		ModelRetry: &agent.ModelRetryPolicy{Attempts: 3}})
	if r := log.ofKind(agent.EventModelResponse); len(r) != 1 || r[0].Attempt != 0 {
		t.Errorf("model_response events %+v; want one with Attempt 0", r)
	}
}

// TestRunEndTurnCountsAnsweredTurns: a model call that fails, or that the
// run's cancellation interrupts, is not a turn: the run_end event's Turn is
// the number of turns the model answered, as in RunResult.Turns.
func TestRunEndTurnCountsAnsweredTurns(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reason agent.Reason
		fail   func(cancel context.CancelFunc) step
	}{
		{"model error", agent.ReasonModelError, func(context.CancelFunc) step {
			return step{err: providerErr(llm.ErrAuth, 401, 0)}
		}},
		{"cancelled during the call", agent.ReasonCancelled, func(cancel context.CancelFunc) step {
			return step{err: providerErr(llm.ErrOverloaded, 503, 0), before: func(*llm.Request) { cancel() }}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			log := &eventLog{}
			model := script(respond(call("c1", "echo", `{"text":"hi"}`)), tc.fail(cancel))
			run, _ := agent.Run(ctx, model, newRegistry(t, echo("echo")), nil, &agent.Options{Clock: virtual(), Observer: log.observe,
				ModelRetry: &agent.ModelRetryPolicy{Attempts: 3}})
			if run.Termination.Reason != tc.reason || len(run.Turns) != 1 {
				t.Fatalf("run ended %v with %d turns; want %v after 1", run.Termination.Reason, len(run.Turns), tc.reason)
			}
			if end := log.ofKind(agent.EventRunEnd); len(end) != 1 || end[0].Turn != 1 {
				t.Errorf("run_end events %+v; want one at turn 1", end)
			}
		})
	}
}

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
