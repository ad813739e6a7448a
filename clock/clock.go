// Package clock is the seam through which time enters a run. The agent loop and
// the fixtures never call time.Now or time.Sleep: they ask a Clock, which is
// either the real one or a Virtual clock that advances only when something
// sleeps on it, so a replay's retries, delays and timeouts take no wall time and
// give the same figures on every machine.
//
// A tool finds the run's clock in its context:
//
//	c := clock.FromContext(ctx)
//	if err := c.Sleep(ctx, 2*time.Second); err != nil {
//		return nil, err // context.DeadlineExceeded when the call's timeout hit first
//	}
//
// Each call of a batch gets its own timeline (Fork), starting at the batch's
// start, so calls that run concurrently overlap in virtual time instead of
// adding up, and the result does not depend on goroutine scheduling.
package clock

import (
	"context"
	"sync"
	"time"
)

// Clock tells the time and waits.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits for d, or until ctx is done (returning ctx.Err()), or until the
	// clock's deadline (returning context.DeadlineExceeded).
	Sleep(ctx context.Context, d time.Duration) error
	// Fork returns a clock for one call starting now. A zero deadline means none;
	// otherwise sleeping past it fails with context.DeadlineExceeded. The
	// parent is not affected by the child's sleeps.
	Fork(deadline time.Time) Clock
}

// Real is the wall clock. Its zero value is ready to use.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Sleep waits on a timer or ctx.
func (Real) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Fork returns the real clock: on the wall clock, deadlines are enforced by the
// context the agent gives the call.
func (Real) Fork(time.Time) Clock { return Real{} }

// Virtual is a clock that moves only when told to or slept on: Sleep advances it
// at once and returns. It is safe for concurrent use. Use NewVirtual.
type Virtual struct {
	mu       sync.Mutex
	now      time.Time
	deadline time.Time
	expired  bool
}

// Epoch is the default start of a virtual clock: a fixed instant, so that times
// derived from it are the same on every run.
var Epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// NewVirtual returns a virtual clock reading start (Epoch when zero).
func NewVirtual(start time.Time) *Virtual {
	if start.IsZero() {
		start = Epoch
	}
	return &Virtual{now: start}
}

// Now returns the virtual time.
func (v *Virtual) Now() time.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.now
}

// Sleep advances the clock by d without waiting. When the clock has a deadline
// that d would pass, it advances to the deadline and returns
// context.DeadlineExceeded. A done ctx returns its error without advancing.
func (v *Virtual) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if d < 0 {
		d = 0
	}
	target := v.now.Add(d)
	if !v.deadline.IsZero() && target.After(v.deadline) {
		v.now = v.deadline
		v.expired = true
		return context.DeadlineExceeded
	}
	v.now = target
	return nil
}

// Advance moves the clock forward by d.
func (v *Virtual) Advance(d time.Duration) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.now = v.now.Add(d)
}

// AdvanceTo moves the clock to t if t is later than now.
func (v *Virtual) AdvanceTo(t time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if t.After(v.now) {
		v.now = t
	}
}

// Fork returns a child virtual clock reading the same time, with the given
// deadline.
func (v *Virtual) Fork(deadline time.Time) Clock {
	return &Virtual{now: v.Now(), deadline: deadline}
}

// Expired reports whether a sleep on v ran into its deadline.
func (v *Virtual) Expired() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.expired
}

type contextKey struct{}

// NewContext returns a context that carries c.
func NewContext(ctx context.Context, c Clock) context.Context {
	return context.WithValue(ctx, contextKey{}, c)
}

// FromContext returns the clock carried by ctx, or Real{} when there is none.
func FromContext(ctx context.Context) Clock {
	if c, ok := ctx.Value(contextKey{}).(Clock); ok {
		return c
	}
	return Real{}
}
