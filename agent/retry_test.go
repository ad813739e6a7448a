package agent_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/tools"
)

// flaky fails transiently until its attempt number reaches succeedOn (never
// when zero); each attempt takes 10ms on the call's clock.
func flaky(name string, idempotent bool, succeedOn int32) *counted {
	c := &counted{spec: tools.Spec{Name: name, Safety: tools.Safety{Idempotent: idempotent}}}
	c.fn = func(ctx context.Context, _ tools.Call) (*tools.Result, error) {
		if err := clock.FromContext(ctx).Sleep(ctx, 10*time.Millisecond); err != nil {
			return nil, err
		}
		if c.n.Load() == succeedOn {
			return tools.Success("worked"), nil
		}
		return tools.TransientFailure("try again"), nil
	}
	return c
}

func TestRetryWithExponentialBackoff(t *testing.T) {
	tool := flaky("fetch", true, 0)
	log := &eventLog{}
	model := script(respond(call("c1", "fetch", `{}`)), final("done"))
	run := mustRun(t, model, newRegistry(t, tool), &agent.Options{
		Clock: virtual(), Observer: log.observe,
		Retry: &agent.RetryPolicy{Attempts: 4, Backoff: 100 * time.Millisecond},
	})
	if tool.n.Load() != 4 {
		t.Errorf("executed %d times, want 4", tool.n.Load())
	}
	type retry struct {
		attempt int
		backoff time.Duration
		at      time.Time
	}
	var got []retry
	for _, e := range log.ofKind(agent.EventRetry) {
		if e.CallID != "c1" || e.Tool != "fetch" || e.Result.Kind() != tools.KindTransient {
			t.Errorf("retry event %+v", e)
		}
		got = append(got, retry{e.Attempt, e.Backoff, e.Time})
	}
	// attempts end at 10ms, 10+100+10, 120+200+10, 330+400+10
	want := []retry{
		{1, 100 * time.Millisecond, at(10 * time.Millisecond)},
		{2, 200 * time.Millisecond, at(120 * time.Millisecond)},
		{3, 400 * time.Millisecond, at(330 * time.Millisecond)},
	}
	if !slices.Equal(got, want) {
		t.Errorf("retries\n got %+v\nwant %+v", got, want)
	}
	end := log.ofKind(agent.EventToolEnd)[0]
	if end.Duration != 740*time.Millisecond || end.Time != at(740*time.Millisecond) || end.Attempt != 4 {
		t.Errorf("tool_end duration %v at %v attempt %d; want 740ms, +740ms, 4", end.Duration, end.Time, end.Attempt)
	}
	rec := run.Turns[0].Calls[0]
	if len(rec.Attempts) != 4 || rec.Retries() != 3 || rec.Result.Kind() != tools.KindTransient {
		t.Errorf("record: %d attempts, %d retries, %q", len(rec.Attempts), rec.Retries(), rec.Result.Kind())
	}
	for i, a := range rec.Attempts {
		if a.Duration != 10*time.Millisecond {
			t.Errorf("attempt %d took %v, want 10ms", i+1, a.Duration)
		}
	}
	equalStrings(t, "events", log.kinds()[3:9], []string{"tool_start:c1", "retry:c1", "retry:c1", "retry:c1", "tool_end:c1", "turn_end"})
}

func TestRetryStopsOnSuccess(t *testing.T) {
	tool := flaky("fetch", true, 3)
	run := mustRun(t, script(respond(call("c1", "fetch", `{}`)), final("done")), newRegistry(t, tool),
		&agent.Options{Clock: virtual(), Retry: &agent.RetryPolicy{Attempts: 5, Backoff: time.Second}})
	rec := run.Turns[0].Calls[0]
	if tool.n.Load() != 3 || len(rec.Attempts) != 3 || rec.Result.Content != "worked" {
		t.Fatalf("executed %d, %d attempts, result %q", tool.n.Load(), len(rec.Attempts), rec.Result.Content)
	}
	kinds := []tools.FailureKind{rec.Attempts[0].Result.Kind(), rec.Attempts[1].Result.Kind(), rec.Attempts[2].Result.Kind()}
	if !slices.Equal(kinds, []tools.FailureKind{tools.KindTransient, tools.KindTransient, ""}) {
		t.Errorf("attempt kinds %q", kinds)
	}
	if rec.Duration != 3*10*time.Millisecond+time.Second+2*time.Second {
		t.Errorf("duration %v", rec.Duration)
	}
}

func TestNoRetry(t *testing.T) {
	for _, tc := range []struct {
		name       string
		idempotent bool
		policy     *agent.RetryPolicy
	}{
		{"non-idempotent tool", false, &agent.RetryPolicy{Attempts: 5}},
		{"no policy", true, nil},
		{"one attempt", true, &agent.RetryPolicy{Attempts: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := flaky("send", tc.idempotent, 0)
			log := &eventLog{}
			run := mustRun(t, script(respond(call("c1", "send", `{}`)), final("done")), newRegistry(t, tool),
				&agent.Options{Clock: virtual(), Retry: tc.policy, Observer: log.observe})
			if tool.n.Load() != 1 || len(run.Turns[0].Calls[0].Attempts) != 1 || len(log.ofKind(agent.EventRetry)) != 0 {
				t.Errorf("executed %d times, want 1 without retry events", tool.n.Load())
			}
		})
	}
}

func TestNonTransientFailureIsNotRetried(t *testing.T) {
	tool := &counted{spec: tools.Spec{Name: "bad", Safety: tools.Safety{Idempotent: true}}, fn: func(context.Context, tools.Call) (*tools.Result, error) {
		return tools.Fail(tools.KindFailed, "broken"), nil
	}}
	mustRun(t, script(respond(call("c1", "bad", `{}`)), final("done")), newRegistry(t, tool),
		&agent.Options{Clock: virtual(), Retry: &agent.RetryPolicy{Attempts: 3}})
	if tool.n.Load() != 1 {
		t.Errorf("executed %d times, want 1", tool.n.Load())
	}
}

func TestBackoffIsCapped(t *testing.T) {
	log := &eventLog{}
	mustRun(t, script(respond(call("c1", "fetch", `{}`)), final("done")), newRegistry(t, flaky("fetch", true, 0)),
		&agent.Options{Clock: virtual(), Observer: log.observe,
			Retry: &agent.RetryPolicy{Attempts: 5, Backoff: 100 * time.Millisecond, MaxBackoff: 300 * time.Millisecond}})
	var got []time.Duration
	for _, e := range log.ofKind(agent.EventRetry) {
		got = append(got, e.Backoff)
	}
	if want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond}; !slices.Equal(got, want) {
		t.Errorf("backoffs %v, want %v", got, want)
	}
}

// TestTimeoutAndValidationFailuresAreNotRetried: only transient failures of
// idempotent tools are retried; a timeout and a validation failure the tool
// returns itself are final after one attempt.
func TestTimeoutAndValidationFailuresAreNotRetried(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(ctx context.Context, _ tools.Call) (*tools.Result, error)
		kind tools.FailureKind
	}{
		{name: "timeout", kind: tools.KindTimeout, fn: func(ctx context.Context, _ tools.Call) (*tools.Result, error) {
			if err := clock.FromContext(ctx).Sleep(ctx, 5*time.Second); err != nil {
				return nil, err
			}
			return tools.Success("too late"), nil
		}},
		{name: "validation", kind: tools.KindValidation, fn: func(context.Context, tools.Call) (*tools.Result, error) {
			return tools.Fail(tools.KindValidation, "n must be even"), nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := &counted{spec: tools.Spec{Name: "fetch", Timeout: time.Second, Safety: tools.Safety{Idempotent: true, SideEffects: tools.SideEffectRead}}, fn: tc.fn}
			log := &eventLog{}
			run := mustRun(t, script(respond(call("c1", "fetch", `{}`)), final("done")), newRegistry(t, tool),
				&agent.Options{Clock: virtual(), Observer: log.observe, Retry: &agent.RetryPolicy{Attempts: 3, Backoff: time.Millisecond}})
			rec := run.Turns[0].Calls[0]
			if rec.Result.Kind() != tc.kind {
				t.Fatalf("kind %q, want %q (%s)", rec.Result.Kind(), tc.kind, rec.Result.Content)
			}
			if tool.n.Load() != 1 || len(rec.Attempts) != 1 || len(log.ofKind(agent.EventRetry)) != 0 {
				t.Errorf("executed %d times in %d attempts with %d retry events, want 1, 1, 0",
					tool.n.Load(), len(rec.Attempts), len(log.ofKind(agent.EventRetry)))
			}
		})
	}
}
