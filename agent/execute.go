package agent

import (
	"context"
	"sync"
	"time"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/tools"
)

// execution is what running one call produced, gathered off the loop's
// goroutine and handed to it after the batch.
type execution struct {
	start, end time.Time
	// attempts starts empty with room for one attempt in an array the batch
	// allocates for all its calls: the records keep it, so it must not live
	// in the batch's working state, which would stay alive with it.
	attempts []Attempt
	result   *tools.Result
	mu       sync.Mutex // guards updates, events and finished against late progress reports
	updates  []string
	events   []Event // tool_update and retry events, in the order they happened to this call
	running  int     // the attempt running, 0 when none: late progress reports are dropped
}

// advance moves c forward to t when c is a clock that can be moved
// (*clock.Virtual); the wall clock moves by itself.
func advance(c clock.Clock, t time.Time) {
	if a, ok := c.(interface{ AdvanceTo(time.Time) }); ok {
		a.AdvanceTo(t)
	}
}

// execute runs one prepared call on its own timeline: attempts, per-attempt
// timeouts, and retries with backoff for transient failures of idempotent tools.
func (r *runner) execute(ctx context.Context, p *pendingCall) {
	ex := &p.exec
	timeout := p.prep.Spec.Timeout
	if timeout == 0 {
		timeout = r.opts.ToolTimeout
	}
	attempts := 1
	if p.prep.Spec.Safety.Idempotent {
		attempts = r.opts.Retry.attempts()
	}
	if attempts == 1 {
		// One attempt needs no timeline of its own to wait on between
		// attempts: it forks the run's clock, which it never moves.
		ex.start = r.clock.Now()
		res, d, end := r.attempt(ctx, p, 1, r.clock, timeout)
		ex.attempts = append(ex.attempts, Attempt{Result: res, Duration: d})
		ex.result, ex.end = res, end
		return
	}
	base := r.clock.Fork(time.Time{})
	ex.start = base.Now()
	for n := 1; ; n++ {
		res, d, end := r.attempt(ctx, p, n, base, timeout)
		advance(base, end)
		ex.attempts = append(ex.attempts, Attempt{Result: res, Duration: d})
		if res.Kind() != tools.KindTransient || n >= attempts || ctx.Err() != nil {
			ex.result = res
			break
		}
		wait := r.opts.Retry.backoff(n)
		ex.mu.Lock()
		ex.events = append(ex.events, Event{Kind: EventRetry, CallID: p.rec.Call.ID, Tool: p.rec.Call.Name,
			Attempt: n, Backoff: wait, Result: res, Time: base.Now()})
		ex.mu.Unlock()
		if err := base.Sleep(ctx, wait); err != nil {
			ex.result = tools.Failf(tools.KindCancelled, "the run was cancelled while %s waited to retry: %v", p.rec.Call.Name, err)
			break
		}
	}
	ex.end = base.Now()
}

// attempt runs the call's attempt n once on a fork of base, the call's
// timeline, which it does not move, and returns the result, the attempt's
// duration and the time it ended on the fork.
func (r *runner) attempt(ctx context.Context, p *pendingCall, n int, base clock.Clock, timeout time.Duration) (*tools.Result, time.Duration, time.Time) {
	ex := &p.exec
	start := base.Now()
	var deadline time.Time
	if timeout > 0 && r.virtual {
		deadline = start.Add(timeout)
	}
	c := base.Fork(deadline)
	ex.mu.Lock()
	ex.running = n
	ex.mu.Unlock()
	actx := clock.NewContext(ctx, c)
	actx = tools.WithCompletion(actx, r.async.completer(p.rec.Call.ID))
	actx = tools.WithProgress(actx, func(msg string) {
		ex.mu.Lock()
		defer ex.mu.Unlock()
		if ex.running != n {
			return // the attempt already returned: late updates are dropped
		}
		ex.updates = append(ex.updates, msg)
		ex.events = append(ex.events, Event{Kind: EventToolUpdate, CallID: p.rec.Call.ID, Tool: p.rec.Call.Name, Message: msg, Time: c.Now()})
	})
	var res *tools.Result
	if timeout > 0 && !r.virtual {
		res = r.runWithTimeout(actx, p, timeout)
	} else {
		res = p.prep.Run(actx)
	}
	ex.mu.Lock()
	ex.running = 0
	ex.mu.Unlock()
	if v, ok := c.(*clock.Virtual); ok && v.Expired() && res.Kind() != tools.KindTimeout {
		res = timeoutResult(p.rec.Call.Name, timeout)
	}
	end := c.Now()
	return res, end.Sub(start), end
}

// runWithTimeout runs the call under a wall-clock timeout. A call that overruns
// is abandoned: its context is cancelled and it gets a timeout result at once,
// and the run waits for it to return before Run returns, so that no goroutine
// outlives the run.
func (r *runner) runWithTimeout(ctx context.Context, p *pendingCall, timeout time.Duration) *tools.Result {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan *tools.Result, 1)
	r.waiting.Add(1)
	go func() {
		defer r.waiting.Done()
		done <- p.prep.Run(tctx)
	}()
	select {
	case res := <-done:
		return res
	case <-tctx.Done():
		if ctx.Err() != nil {
			return tools.Failf(tools.KindCancelled, "the run was cancelled while %s ran", p.rec.Call.Name)
		}
		return timeoutResult(p.rec.Call.Name, timeout)
	}
}

func timeoutResult(name string, timeout time.Duration) *tools.Result {
	return tools.Failf(tools.KindTimeout, "tool %s did not finish within %s and was abandoned; try a smaller request or another approach", name, timeout)
}
