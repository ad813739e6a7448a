package agent_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
)

func providerErr(kind llm.ErrorKind, status int, retryAfter time.Duration) error {
	return &llm.ProviderError{Kind: kind, Provider: "test", StatusCode: status, RetryAfter: retryAfter, Message: "scripted"}
}

func TestModelRetryHonoursRetryAfterOnTheRunClock(t *testing.T) {
	log := &eventLog{}
	model := script(
		step{err: providerErr(llm.ErrRateLimited, 429, 3*time.Second)},
		step{err: providerErr(llm.ErrOverloaded, 503, 0)},
		final("done"),
	)
	run, err := agent.Run(t.Context(), model, newRegistry(t), nil, &agent.Options{
		Clock: virtual(), Observer: log.observe,
		ModelRetry: &agent.ModelRetryPolicy{Attempts: 3, Backoff: time.Second},
	})
	if err != nil || run.Termination.Reason != agent.ReasonFinalText || run.FinalText() != "done" {
		t.Fatalf("run ended %v (%v), final %q", run.Termination.Reason, err, run.FinalText())
	}
	if model.count() != 3 || run.ModelCalls != 1 || run.ModelRetries != 2 {
		t.Errorf("%d requests, ModelCalls %d, ModelRetries %d; want 3, 1, 2", model.count(), run.ModelCalls, run.ModelRetries)
	}
	type retry struct {
		attempt int
		backoff time.Duration
		kind    llm.ErrorKind
		at      time.Time
	}
	var got []retry
	for _, e := range log.ofKind(agent.EventModelRetry) {
		got = append(got, retry{e.Attempt, e.Backoff, e.ErrorKind, e.Time})
	}
	// The 429 asks for 3s (more than the 1s backoff); the 503 then waits the
	// doubled backoff, 2s.
	want := []retry{
		{1, 3 * time.Second, llm.ErrRateLimited, at(0)},
		{2, 2 * time.Second, llm.ErrOverloaded, at(3 * time.Second)},
	}
	if !slices.Equal(got, want) {
		t.Errorf("model_retry events\n got %+v\nwant %+v", got, want)
	}
	resp := log.ofKind(agent.EventModelResponse)
	if len(resp) != 1 || resp[0].Attempt != 3 || resp[0].Time != at(5*time.Second) {
		t.Errorf("model_response events %+v; want one, attempt 3, at +5s", resp)
	}
	if e := log.ofKind(agent.EventModelRetry)[0].Error; e != "test: rate_limited (HTTP 429), retry after 3s: scripted" {
		t.Errorf("retry event error %q", e)
	}
	equalStrings(t, "events", log.kinds(), []string{"run_start", "model_request", "model_retry", "model_retry", "model_response", "turn_end", "run_end"})
}

func TestModelRetryGivesUp(t *testing.T) {
	for _, tc := range []struct {
		name     string
		policy   *agent.ModelRetryPolicy
		errs     []error
		requests int
		kind     llm.ErrorKind
	}{
		{"no policy", nil, []error{providerErr(llm.ErrRateLimited, 429, 0)}, 1, llm.ErrRateLimited},
		{"not retryable", &agent.ModelRetryPolicy{Attempts: 5}, []error{providerErr(llm.ErrAuth, 401, 0)}, 1, llm.ErrAuth},
		{"plain error", &agent.ModelRetryPolicy{Attempts: 5}, []error{errors.New("boom")}, 1, ""},
		{"attempts used", &agent.ModelRetryPolicy{Attempts: 2}, []error{providerErr(llm.ErrOverloaded, 500, 0), providerErr(llm.ErrOverloaded, 502, 0)}, 2, llm.ErrOverloaded},
		{"retry-after too long", &agent.ModelRetryPolicy{Attempts: 5, MaxRetryAfter: time.Minute}, []error{providerErr(llm.ErrRateLimited, 429, time.Hour)}, 1, llm.ErrRateLimited},
		{"unreachable once", &agent.ModelRetryPolicy{Attempts: 5}, []error{providerErr(llm.ErrUnreachable, 0, 0), providerErr(llm.ErrUnreachable, 0, 0)}, 2, llm.ErrUnreachable},
		{"custom retryable", &agent.ModelRetryPolicy{Attempts: 5, Retryable: func(error) bool { return false }}, []error{providerErr(llm.ErrOverloaded, 503, 0)}, 1, llm.ErrOverloaded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var steps []step
			for _, e := range tc.errs {
				steps = append(steps, step{err: e})
			}
			log := &eventLog{}
			model := script(append(steps, final("never"))...)
			run, err := agent.Run(t.Context(), model, newRegistry(t), nil, &agent.Options{Clock: virtual(), Observer: log.observe, ModelRetry: tc.policy})
			if run.Termination.Reason != agent.ReasonModelError || !errors.Is(err, agent.ErrModel) || !errors.Is(err, tc.errs[len(tc.errs)-1]) {
				t.Fatalf("run ended %v with %v", run.Termination.Reason, err)
			}
			if model.count() != tc.requests {
				t.Errorf("%d requests, want %d", model.count(), tc.requests)
			}
			failed := log.ofKind(agent.EventModelError)
			if len(failed) != 1 || failed[0].Attempt != tc.requests || failed[0].ErrorKind != tc.kind || failed[0].Error != tc.errs[len(tc.errs)-1].Error() {
				t.Errorf("model_error events %+v", failed)
			}
			if n := len(log.ofKind(agent.EventModelRetry)); n != tc.requests-1 {
				t.Errorf("%d model_retry events, want %d", n, tc.requests-1)
			}
		})
	}
}

func TestModelRetryIgnoringRetryAfterCapsBackoff(t *testing.T) {
	log := &eventLog{}
	model := script(
		step{err: providerErr(llm.ErrRateLimited, 429, time.Minute)},
		step{err: providerErr(llm.ErrRateLimited, 429, time.Minute)},
		step{err: providerErr(llm.ErrRateLimited, 429, time.Minute)},
		final("done"),
	)
	if _, err := agent.Run(t.Context(), model, newRegistry(t), nil, &agent.Options{
		Clock: virtual(), Observer: log.observe,
		ModelRetry: &agent.ModelRetryPolicy{Attempts: 4, Backoff: time.Second, MaxBackoff: 3 * time.Second, IgnoreRetryAfter: true},
	}); err != nil {
		t.Fatal(err)
	}
	var got []time.Duration
	for _, e := range log.ofKind(agent.EventModelRetry) {
		got = append(got, e.Backoff)
	}
	if want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("backoffs %v, want %v", got, want)
	}
}

func TestModelRetryStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	model := script(step{err: providerErr(llm.ErrOverloaded, 503, 0), before: func(*llm.Request) { cancel() }}, final("never"))
	run, err := agent.Run(ctx, model, newRegistry(t), nil, &agent.Options{Clock: virtual(), ModelRetry: &agent.ModelRetryPolicy{Attempts: 3, Backoff: time.Second}})
	if run.Termination.Reason != agent.ReasonCancelled || model.count() != 1 {
		t.Errorf("run ended %v (%v) after %d requests; want cancelled after 1", run.Termination.Reason, err, model.count())
	}
}

// TestModelTimeoutBoundsEachAttempt pins Options.ModelTimeout: every attempt
// gets its own deadline, and one that passes is a failure the retry policy
// sees (here the model reports it as a provider timeout, as providers do).
func TestModelTimeoutBoundsEachAttempt(t *testing.T) {
	var deadlines []bool
	calls := 0
	model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		calls++
		_, has := ctx.Deadline()
		deadlines = append(deadlines, has)
		if calls == 1 {
			<-ctx.Done() // the first attempt hangs until its deadline
			return nil, llm.ContextError(ctx, "test", ctx.Err())
		}
		return &llm.Response{Message: llm.AssistantMessage("done")}, nil
	})
	run, err := agent.Run(t.Context(), model, newRegistry(t), nil, &agent.Options{
		Clock:        virtual(),
		ModelTimeout: time.Millisecond,
		ModelRetry:   &agent.ModelRetryPolicy{Attempts: 2},
	})
	if err != nil || run.FinalText() != "done" || run.ModelRetries != 1 {
		t.Fatalf("run: err %v, final %q, retries %d", err, run.FinalText(), run.ModelRetries)
	}
	if !slices.Equal(deadlines, []bool{true, true}) {
		t.Errorf("attempts had deadlines %v; want each to have one", deadlines)
	}
	// A model that returns the bare context error timed out all the same.
	calls = 0
	bare := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		calls++
		if calls == 1 {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return &llm.Response{Message: llm.AssistantMessage("done")}, nil
	})
	run, err = agent.Run(t.Context(), bare, newRegistry(t), nil, &agent.Options{
		Clock: virtual(), ModelTimeout: time.Millisecond, ModelRetry: &agent.ModelRetryPolicy{Attempts: 2},
	})
	if err != nil || run.FinalText() != "done" || run.ModelRetries != 1 {
		t.Fatalf("bare ctx.Err(): err %v, final %q, retries %d; want the timeout retried", err, run.FinalText(), run.ModelRetries)
	}
	_, err = agent.Run(t.Context(), llm.ModelFunc(func(ctx context.Context, _ *llm.Request) (*llm.Response, error) {
		if _, has := ctx.Deadline(); has {
			t.Error("a zero ModelTimeout set a deadline")
		}
		return &llm.Response{Message: llm.AssistantMessage("ok")}, nil
	}), newRegistry(t), nil, &agent.Options{Clock: virtual()})
	if err != nil {
		t.Fatal(err)
	}
}

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

// TestModelCallNumbersEachCallsEvents: the request, retries and answer of
// one model call carry its number; the next call, the next number.
func TestModelCallNumbersEachCallsEvents(t *testing.T) {
	log := &eventLog{}
	model := script(
		step{err: providerErr(llm.ErrOverloaded, 503, 0)},
		respond(call("c1", "nosuch", `{}`)),
		final("done"),
	)
	_, err := agent.Run(t.Context(), model, newRegistry(t), nil, &agent.Options{
		Clock: virtual(), Observer: log.observe, ModelRetry: &agent.ModelRetryPolicy{Attempts: 2, Backoff: time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range log.all() {
		if e.ModelCall != 0 {
			got = append(got, fmt.Sprintf("%s %d", e.Kind, e.ModelCall))
		}
	}
	equalStrings(t, "numbered events", got, []string{"model_request 1", "model_retry 1", "model_response 1", "model_request 2", "model_response 2"})
}
