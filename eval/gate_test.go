package eval

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
)

func TestGateRPMSpacesCalls(t *testing.T) {
	c := clock.NewVirtual(clock.Epoch)
	g := newGate(c, Limit{RPM: 60})
	for range 3 {
		if err := g.wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.Now().Sub(clock.Epoch); got != 2*time.Second {
		t.Errorf("three calls at 60 rpm took %v; want 2s", got)
	}
}

func TestGateTPMHoldsUntilTheWindowClears(t *testing.T) {
	c := clock.NewVirtual(clock.Epoch)
	g := newGate(c, Limit{TPM: 100})
	if err := g.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	g.done(60, nil, 1)
	if err := g.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := c.Now().Sub(clock.Epoch); got != 0 {
		t.Errorf("60 of 100 tokens used: waited %v; want 0", got)
	}
	g.done(50, nil, 1)
	if err := g.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := c.Now().Sub(clock.Epoch); got != time.Minute {
		t.Errorf("110 of 100 tokens used: waited %v; want 1m (until the first call leaves the window)", got)
	}
}

// TestGateRateLimitPausesEveryone checks that a 429 with Retry-After holds
// every caller of the provider for that long, and that without Retry-After
// the pause doubles with each consecutive 429.
func TestGateRateLimitPausesEveryone(t *testing.T) {
	c := clock.NewVirtual(clock.Epoch)
	g := newGate(c, Limit{})
	g.done(0, &llm.ProviderError{Kind: llm.ErrRateLimited, StatusCode: 429, RetryAfter: 3 * time.Second}, 1)
	if err := g.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := c.Now().Sub(clock.Epoch); got != 3*time.Second {
		t.Errorf("waited %v after Retry-After: 3; want 3s", got)
	}
	var waits []time.Duration
	for range 3 {
		before := c.Now()
		g.done(0, &llm.ProviderError{Kind: llm.ErrRateLimited, StatusCode: 429}, 1)
		if err := g.wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		waits = append(waits, c.Now().Sub(before))
	}
	if want := []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second}; !equalDurations(waits, want) {
		t.Errorf("backoffs without Retry-After %v; want %v", waits, want)
	}
	g.done(10, nil, 1) // a success resets the backoff
	g.done(0, &llm.ProviderError{Kind: llm.ErrRateLimited}, 1)
	before := c.Now()
	_ = g.wait(context.Background())
	if got := c.Now().Sub(before); got != time.Second {
		t.Errorf("after a success the backoff is %v; want 1s", got)
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestMeterRetriesRateLimits checks that a model call that hits a 429 is
// made again after the server's Retry-After, and is measured once.
func TestMeterRetriesRateLimits(t *testing.T) {
	c := clock.NewVirtual(clock.Epoch)
	calls := 0
	model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		calls++
		if calls <= 2 {
			return nil, &llm.ProviderError{Kind: llm.ErrRateLimited, StatusCode: 429, RetryAfter: 5 * time.Second}
		}
		return &llm.Response{Message: llm.AssistantMessage("ok"), Usage: llm.Usage{InputTokens: 3, OutputTokens: 1}}, nil
	})
	m := &meter{model: model, gate: newGate(c, Limit{}), clock: c, retries: 3}
	resp, err := m.Generate(context.Background(), &llm.Request{})
	if err != nil || resp.Message.Content != "ok" {
		t.Fatalf("got %v, %v", resp, err)
	}
	if calls != 3 || len(m.calls) != 1 || m.calls[0].err != nil {
		t.Errorf("%d calls, %d measured (%+v); want 3 calls, 1 measured success", calls, len(m.calls), m.calls)
	}
	if got := c.Now().Sub(clock.Epoch); got != 10*time.Second {
		t.Errorf("two 429s with Retry-After 5s took %v; want 10s", got)
	}
	// A failure that cannot pass is not retried.
	calls = 0
	bad := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		calls++
		return nil, &llm.ProviderError{Kind: llm.ErrAuth, StatusCode: 401}
	})
	m = &meter{model: bad, gate: newGate(c, Limit{}), clock: c, retries: 3}
	if _, err := m.Generate(context.Background(), &llm.Request{}); err == nil || calls != 1 {
		t.Errorf("auth failure: err %v after %d calls; want an error after 1", err, calls)
	}
	// An unreachable server is tried again once, not three times.
	calls = 0
	down := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		calls++
		return nil, &llm.ProviderError{Kind: llm.ErrUnreachable, Message: "cannot reach the server at http://127.0.0.1:1/v1"}
	})
	m = &meter{model: down, gate: newGate(c, Limit{}), clock: c, retries: 3}
	if _, err := m.Generate(context.Background(), &llm.Request{}); !errors.Is(err, llm.ErrUnreachable) || calls != 2 || len(m.calls) != 1 {
		t.Errorf("unreachable: err %v after %d calls, %d measured; want it after 2 calls, measured once", err, calls, len(m.calls))
	}
}

// A window that has used exactly the TPM limit holds the next call until
// its first call leaves the window.
func TestGateTPMHoldsAtExactlyTheLimit(t *testing.T) {
	c := clock.NewVirtual(clock.Epoch)
	g := newGate(c, Limit{TPM: 100})
	if err := g.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	g.done(100, nil, 1)
	if err := g.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := c.Now().Sub(clock.Epoch); got != time.Minute {
		t.Errorf("100 of 100 tokens used: waited %v; want 1m", got)
	}
}

// Without a TPM limit the gate keeps no token history, however many
// calls finish: a long run does not grow it.
func TestGateWithoutTPMKeepsNoHistory(t *testing.T) {
	g := newGate(clock.NewVirtual(clock.Epoch), Limit{RPM: 600})
	for range 1000 {
		if err := g.wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		g.done(50, nil, 1)
	}
	if len(g.window) != 0 {
		t.Errorf("the gate holds %d token uses without a TPM limit; want none", len(g.window))
	}
}

// A call that failed for another reason than a rate limit is retried
// after the wait its server asked for, or else after a backoff of 1s
// doubled for each attempt before, up to a minute.
func TestGateRetryWaitOfAFailedCall(t *testing.T) {
	g := newGate(clock.NewVirtual(clock.Epoch), Limit{})
	unavailable := &llm.ProviderError{Kind: llm.ErrOverloaded, StatusCode: 503}
	for _, c := range []struct {
		err     error
		attempt int
		want    time.Duration
	}{
		{unavailable, 1, time.Second},
		{unavailable, 3, 4 * time.Second},
		{unavailable, 20, time.Minute},
		{&llm.ProviderError{Kind: llm.ErrOverloaded, StatusCode: 503, RetryAfter: 5 * time.Second}, 1, 5 * time.Second},
	} {
		if got := g.done(0, c.err, c.attempt); got != c.want {
			t.Errorf("attempt %d failed with %v: retry after %v, want %v", c.attempt, c.err, got, c.want)
		}
	}
}

// sleepCounter is a virtual clock that counts the sleeps on it: each is a
// wake-up of a waiting call.
type sleepCounter struct {
	*clock.Virtual
	sleeps int
}

func (c *sleepCounter) Sleep(ctx context.Context, d time.Duration) error {
	c.sleeps++
	return c.Virtual.Sleep(ctx, d)
}

// A call that used no tokens (one that failed before the provider counted
// any) takes no place in the TPM window: a call held by the window sleeps
// once, until the tokens that fill it leave, and is not woken earlier by
// the empty call leaving.
func TestGateTPMIgnoresCallsWithoutTokens(t *testing.T) {
	c := &sleepCounter{Virtual: clock.NewVirtual(clock.Epoch)}
	g := newGate(c, Limit{TPM: 100})
	g.done(0, &llm.ProviderError{Kind: llm.ErrOverloaded, StatusCode: 503}, 1)
	c.Advance(10 * time.Second)
	g.done(150, nil, 1)
	if err := g.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := c.Now().Sub(clock.Epoch); got != 70*time.Second {
		t.Errorf("admitted after %v; want 1m10s, when the 150 tokens leave the window", got)
	}
	if c.sleeps != 1 {
		t.Errorf("the held call woke %d times; want once", c.sleeps)
	}
	if len(g.window) != 0 {
		t.Errorf("the window holds %d calls; want none after a minute", len(g.window))
	}
}

// The TPM window counts a call's input and output tokens together: a call
// of 60 in and 50 out fills a window of 100, so the next call waits for it
// to leave.
func TestMeterCountsInputAndOutputTokensForTPM(t *testing.T) {
	c := clock.NewVirtual(clock.Epoch)
	model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.AssistantMessage("ok"), Usage: llm.Usage{InputTokens: 60, OutputTokens: 50}}, nil
	})
	m := &meter{model: model, gate: newGate(c, Limit{TPM: 100}), clock: c}
	for range 2 {
		if _, err := m.Generate(context.Background(), &llm.Request{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.Now().Sub(clock.Epoch); got != time.Minute {
		t.Errorf("two calls of 110 tokens at 100 TPM took %v; want 1m", got)
	}
}

// TestGateWaitEndsWithItsContext: a call waiting for its rate-limit slot
// stops waiting when its context ends (Ctrl-C), with the context's error,
// and the clock does not move on.
func TestGateWaitEndsWithItsContext(t *testing.T) {
	c := clock.NewVirtual(clock.Epoch)
	g := newGate(c, Limit{RPM: 1})
	if err := g.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("wait = %v; want context.Canceled", err)
	}
	if got := c.Now().Sub(clock.Epoch); got != 0 {
		t.Errorf("the clock moved %v; want 0", got)
	}
}
