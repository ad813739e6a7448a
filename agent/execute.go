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
	attempts   []Attempt
	result     *tools.Result
	mu         sync.Mutex // guards updates and events against late progress reports
	updates    []string
	events     []Event // tool_update and retry events, in the order they happened to this call
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
	base := r.clock.Fork(time.Time{})
	ex.start = base.Now()
	timeout := p.prep.Spec.Timeout
	if timeout == 0 {
		timeout = r.opts.ToolTimeout
	}
	attempts := 1
	if p.prep.Spec.Safety.Idempotent {
		attempts = r.opts.Retry.attempts()
	}
	for n := 1; ; n++ {
		res, d := r.attempt(ctx, p, base, timeout)
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

// attempt runs the call once on a fork of the call's timeline.
func (r *runner) attempt(ctx context.Context, p *pendingCall, base clock.Clock, timeout time.Duration) (*tools.Result, time.Duration) {
	ex := &p.exec
	start := base.Now()
	var deadline time.Time
	if timeout > 0 && r.virtual {
		deadline = start.Add(timeout)
	}
	c := base.Fork(deadline)
	finished := false
	actx := clock.NewContext(ctx, c)
	actx = tools.WithCompletion(actx, r.async.completer(p.rec.Call.ID))
	actx = tools.WithProgress(actx, func(msg string) {
		ex.mu.Lock()
		defer ex.mu.Unlock()
		if finished {
			return // the tool already returned: late updates are dropped
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
	finished = true
	ex.mu.Unlock()
	if v, ok := c.(*clock.Virtual); ok && v.Expired() && res.Kind() != tools.KindTimeout {
		res = timeoutResult(p.rec.Call.Name, timeout)
	}
	advance(base, c.Now())
	return res, c.Now().Sub(start)
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
