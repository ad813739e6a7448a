package agent

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// pendingCall is one call of a batch on its way through the three phases.
type pendingCall struct {
	rec      *CallRecord
	prep     *tools.Prepared
	memoKey  string
	runnable bool
	exec     execution
}

// batch runs one response's calls. Phase one, in source order: preparation,
// before hooks, repair and start events, memo lookups. Phase two: execution,
// concurrently or one by one. Phase three, in source order: after hooks,
// update, retry and end events, memo upkeep and the result messages. It
// reports whether a loop-breaking tool ran and whether every result asked to
// terminate.
func (r *runner) batch(ctx context.Context, snap *tools.Snapshot, t *Turn, calls []llm.ToolCall) (loopBreaking, allTerminate bool) {
	if r.opts.Repairer != nil {
		snap = snap.WithRepairer(r.opts.Repairer)
	}
	pending := make([]pendingCall, len(calls))
	recs := make([]CallRecord, len(calls))
	attempts := make([]Attempt, len(calls)) // the first attempt of each call
	t.Calls = slices.Grow(t.Calls, len(calls))
	sequential := r.opts.Execution == tools.ExecutionSequential
	changedBefore := false // a runnable call so far may change the world
	for i, call := range calls {
		p := &pending[i]
		p.rec = &recs[i]
		p.exec.attempts = attempts[i : i : i+1]
		p.rec.Call = call
		t.Calls = append(t.Calls, p.rec)
		p.prep = snap.Prepare(call)
		p.record()
		// The before hook runs first so that the start event carries the
		// arguments as executed, after any rewrite.
		if p.prep.Ready() && r.opts.Hooks.Before != nil {
			r.before(ctx, snap, p)
		}
		if len(p.rec.Repairs) > 0 {
			r.emit(Event{Kind: EventRepair, CallID: call.ID, Tool: call.Name, Repairs: p.rec.Repairs})
		}
		r.emit(Event{Kind: EventToolStart, CallID: call.ID, Tool: call.Name, Arguments: p.rec.Arguments})
		if !p.prep.Ready() {
			p.rec.Result = p.prep.Result
			continue
		}
		if r.memo != nil && p.prep.Spec.Safety.Pure {
			p.memoKey = call.Name + "\x00" + string(p.prep.Arguments)
			// A call that may change the world earlier in the batch makes the
			// memo stale for the calls after it.
			if res, ok := r.memo[p.memoKey]; ok && !changedBefore {
				p.rec.Result = res.Clone()
				p.rec.Memoized = true
				continue
			}
		}
		p.runnable = true
		if p.prep.Spec.Safety.Changes() {
			changedBefore = true
		}
		if p.prep.Spec.Sequential() {
			sequential = true
		}
	}

	r.executeAll(ctx, pending, sequential)

	loopBreaking, allTerminate = false, true
	for i := range pending {
		p := &pending[i]
		rec := p.rec
		if p.runnable {
			rec.Attempts = p.exec.attempts
			rec.Result = p.exec.result
			rec.Updates = p.exec.updates
			rec.Duration = p.exec.end.Sub(p.exec.start)
			if r.opts.Hooks.After != nil {
				r.after(ctx, p)
			}
			for _, ev := range p.exec.events {
				r.emit(ev)
			}
			if rec.Result.Started && !rec.Result.Failed() {
				rec.Async = true
				r.async.expect(rec.Call.ID, rec.Call.Name)
			}
			r.emit(Event{Kind: EventToolEnd, CallID: rec.Call.ID, Tool: rec.Call.Name, Result: rec.Result,
				Attempt: len(rec.Attempts), Duration: rec.Duration, Time: p.exec.end})
			if p.prep.Spec.LoopBreaking {
				loopBreaking = true
			}
		} else if rec.Memoized {
			r.emit(Event{Kind: EventMemoHit, CallID: rec.Call.ID, Tool: rec.Call.Name, Result: rec.Result})
		} else {
			r.emit(Event{Kind: EventToolEnd, CallID: rec.Call.ID, Tool: rec.Call.Name, Result: rec.Result})
		}
		r.updateMemo(p)
		if !rec.Result.Terminate || !p.runnable {
			allTerminate = false
		}
		msg := llm.ToolMessage(rec.Call.ID, rec.Call.Name, rec.Result.Content)
		msg.IsError = rec.Result.Failed()
		r.result.Messages = append(r.result.Messages, msg)
	}
	return loopBreaking, allTerminate
}

// record copies what preparation found into the call's record.
func (p *pendingCall) record() {
	p.rec.Arguments = p.prep.Arguments
	p.rec.Repairs = p.prep.Repairs
	p.rec.Coercions = p.prep.Coercions
	p.rec.ArgumentsUnchanged = p.prep.ArgumentsUnchanged
}

// before runs the before hook: it may block the call or rewrite its arguments,
// which are then prepared again.
func (r *runner) before(ctx context.Context, snap *tools.Snapshot, p *pendingCall) {
	hc := &HookCall{ID: p.prep.Call.ID, Name: p.prep.Call.Name, Arguments: p.prep.Arguments, Spec: p.prep.Spec}
	original := string(hc.Arguments)
	var err error
	callHook("before", hc.ID, func() { err = r.opts.Hooks.Before(ctx, hc) })
	if err != nil {
		p.prep.Result = tools.Failf(tools.KindBlocked, "the call to %s was blocked: %v", hc.Name, err)
		return
	}
	if string(hc.Arguments) != original {
		repairs := p.rec.Repairs
		p.prep = snap.Prepare(llm.ToolCall{ID: hc.ID, Name: hc.Name, Arguments: string(hc.Arguments)})
		p.record()
		p.rec.Repairs = append(repairs, p.rec.Repairs...)
		p.rec.ArgumentsUnchanged = false // rewritten by the hook
	}
}

// after runs the after hook, which may replace the result.
func (r *runner) after(ctx context.Context, p *pendingCall) {
	hc := HookCall{ID: p.prep.Call.ID, Name: p.prep.Call.Name, Arguments: p.prep.Arguments, Spec: p.prep.Spec}
	var res *tools.Result
	callHook("after", hc.ID, func() { res = r.opts.Hooks.After(ctx, hc, p.rec.Result) })
	if res != nil {
		p.rec.Result = res
	}
}

// updateMemo stores a pure call's success and clears the memo after any call
// that may have changed the workspace or the world. Failures are never stored.
// A call that never ran (unknown tool, bad arguments, blocked, memoised)
// changed nothing, whatever its tool's safety.
func (r *runner) updateMemo(p *pendingCall) {
	if r.memo == nil || !p.runnable {
		return
	}
	res := p.rec.Result
	if p.prep.Spec.Safety.Changes() || tools.ChangesWorkspace(res.Effects) {
		clear(r.memo)
		return
	}
	if p.runnable && p.memoKey != "" && !res.Failed() && !res.Started {
		r.memo[p.memoKey] = res.Clone()
	}
}

// executeAll runs the runnable calls of a batch and waits for all of them.
//
// Calls that change nothing run concurrently. A call that may change the
// workspace or the world (side effects write or external) runs alone: after
// every call before it has finished and before any call after it starts. So a
// batch has the result of running its calls one by one in source order,
// whatever the scheduling — a read and a write of the same file in one batch
// give the same answer on every run. In sequential mode every call runs alone.
//
// On a virtual clock, the calls of a concurrent group start together and the
// run's clock then moves to the latest end; a call that runs alone starts where
// the previous group ended.
func (r *runner) executeAll(ctx context.Context, pending []pendingCall, sequential bool) {
	var group []*pendingCall
	for i := range pending {
		p := &pending[i]
		if !p.runnable {
			continue
		}
		if sequential || p.prep.Spec.Safety.Changes() {
			r.executeGroup(ctx, group)
			r.executeGroup(ctx, []*pendingCall{p})
			group = group[:0]
			continue
		}
		group = append(group, p)
	}
	r.executeGroup(ctx, group)
}

// MaxConcurrentCalls is how many calls of a batch run at once at most: a
// concurrent group of more calls (a model may emit hundreds in one
// response) runs on this many goroutines, each taking the next call in
// source order when its last one returns. Each call still runs on its own
// timeline from the group's start, so on a virtual clock the calls of a
// group overlap in time however many run at once, and the results are the
// same; only the memory differs: a goroutine and its stack for each call of
// 1,000-call responses were ~2.5 MB of the peak of replaying them
// (docs/design.md, "Memory").
const MaxConcurrentCalls = 16

// executeGroup runs calls concurrently, MaxConcurrentCalls at a time, and
// waits for them. The loop's goroutine is one of the workers, so a group of
// one call starts no goroutine.
func (r *runner) executeGroup(ctx context.Context, group []*pendingCall) {
	if len(group) == 0 {
		return
	}
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= len(group) {
				return
			}
			r.execute(ctx, group[i])
		}
	}
	var wg sync.WaitGroup
	for range min(len(group), MaxConcurrentCalls) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	for _, p := range group {
		advance(r.clock, p.exec.end)
	}
}
