package eval

import (
	"context"
	"sync"
	"time"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
)

// maxBackoff caps the shared backoff after repeated rate limits without a
// Retry-After.
const maxBackoff = time.Minute

// gate is one provider's admission control, shared by every trial of every
// model of that provider: it spaces call starts for an RPM limit, holds calls
// while the last minute's tokens reach a TPM limit, and pauses everyone after
// a rate limit for as long as the server asked (Retry-After) or, when it did
// not say, for a backoff that doubles with each consecutive rate limit.
type gate struct {
	clock clock.Clock
	limit Limit

	mu          sync.Mutex
	nextStart   time.Time
	window      []tokenUse
	pausedUntil time.Time
	strikes     int
}

type tokenUse struct {
	at     time.Time
	tokens int
}

func newGate(c clock.Clock, l Limit) *gate { return &gate{clock: c, limit: l} }

// wait blocks until a call may start, or ctx is done.
func (g *gate) wait(ctx context.Context) error {
	for {
		d := g.admit()
		if d <= 0 {
			return ctx.Err()
		}
		if err := g.clock.Sleep(ctx, d); err != nil {
			return err
		}
	}
}

// admit either admits a call (returning 0, having reserved its RPM slot) or
// returns how long to wait before asking again.
func (g *gate) admit() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.clock.Now()
	if now.Before(g.pausedUntil) {
		return g.pausedUntil.Sub(now)
	}
	if g.limit.TPM > 0 {
		cut := 0
		for cut < len(g.window) && !g.window[cut].at.After(now.Add(-time.Minute)) {
			cut++
		}
		g.window = g.window[cut:]
		sum := 0
		for _, u := range g.window {
			sum += u.tokens
		}
		if sum >= g.limit.TPM && len(g.window) > 0 {
			return g.window[0].at.Add(time.Minute).Sub(now)
		}
	}
	if g.limit.RPM > 0 {
		if now.Before(g.nextStart) {
			return g.nextStart.Sub(now)
		}
		g.nextStart = now.Add(time.Minute / time.Duration(g.limit.RPM))
	}
	return 0
}

// done records a finished call: its tokens for the TPM window, and a rate
// limit's pause, shared by everyone. It returns the wait before this call
// may be retried when it failed.
func (g *gate) done(tokens int, err error, attempt int) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.clock.Now()
	if tokens > 0 && g.limit.TPM > 0 {
		g.window = append(g.window, tokenUse{at: now, tokens: tokens})
	}
	switch {
	case err == nil:
		g.strikes = 0
		return 0
	case rateLimited(err):
		d := retryAfter(err)
		if d <= 0 {
			d = backoff(g.strikes)
		}
		g.strikes++
		if until := now.Add(d); until.After(g.pausedUntil) {
			g.pausedUntil = until
		}
		return 0 // wait() holds the retry until the pause ends
	}
	if d := retryAfter(err); d > 0 {
		return d
	}
	return backoff(attempt - 1)
}

// backoff is 1s doubled n times, capped at maxBackoff.
func backoff(n int) time.Duration {
	d := time.Second
	for range n {
		d *= 2
		if d >= maxBackoff {
			return maxBackoff
		}
	}
	return d
}

// Gate is the admission control of one provider's calls outside eval.Run,
// the one eval's trials use: it holds every call of the models wrapped
// with it (Retrying) while the provider asked for a pause (a 429's
// Retry-After, or a backoff doubling from 1 s over consecutive rate
// limits). A recording of many scenarios shares one, so that a pause a
// scenario ran into holds the next scenario's first call too, and the
// backoff's strikes go on rather than starting again. Its clock waits; a
// nil clock is the real one. The zero Gate is not usable: use NewGate.
type Gate struct{ g *gate }

// NewGate returns a Gate that waits on c (nil: the real clock).
func NewGate(c clock.Clock) *Gate {
	if c == nil {
		c = clock.Real{}
	}
	return &Gate{g: newGate(c, Limit{})}
}

// Retrying returns model behind the gate and the retry that every eval
// trial's calls go through: each call waits at g, a 429 pauses every model
// of g for the server's Retry-After (or the backoff), and a call that
// failed with a retryable error (rate limit, overload, timeout, malformed
// response) is made again up to retries times, an unreachable server once,
// after the server's Retry-After or the backoff. A transient failure that a
// retry overcame never reaches the caller; the last failure does.
func (g *Gate) Retrying(model llm.Model, retries int) llm.Model {
	return &retrying{m: &meter{model: model, gate: g.g, clock: g.g.clock, retries: retries}}
}

// Retrying returns model behind a Gate of its own on clock c (nil: the
// real clock), as NewGate(c).Retrying(model, retries).
func Retrying(model llm.Model, c clock.Clock, retries int) llm.Model {
	return NewGate(c).Retrying(model, retries)
}

// retrying is a meter that keeps no measurements.
type retrying struct{ m *meter }

func (r *retrying) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	resp, err := r.m.Generate(ctx, req)
	r.m.mu.Lock()
	r.m.calls = r.m.calls[:0]
	r.m.mu.Unlock()
	return resp, err
}
