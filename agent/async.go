package agent

import (
	"context"
	"fmt"
	"sync"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// asyncQueue collects the completions of asynchronous calls (results with
// Started set), which arrive from any goroutine, and releases them in the order
// the calls were made.
type asyncQueue struct {
	mu     sync.Mutex
	order  []asyncCall // expected completions, in call order
	done   map[string]*tools.Result
	notify chan struct{}
}

type asyncCall struct{ id, name string }

func newAsyncQueue() *asyncQueue {
	return &asyncQueue{done: map[string]*tools.Result{}, notify: make(chan struct{}, 1)}
}

// completer returns the completion callback of the call with the given id. Only
// the first completion counts.
func (q *asyncQueue) completer(id string) tools.CompleteFunc {
	return func(res *tools.Result) {
		if res == nil {
			res = &tools.Result{} // an empty success, as the model will read it
		}
		q.mu.Lock()
		if _, dup := q.done[id]; !dup {
			q.done[id] = res.Clone()
		}
		q.mu.Unlock()
		select {
		case q.notify <- struct{}{}:
		default:
		}
	}
}

// expect records that the call has started and will complete later.
func (q *asyncQueue) expect(id, name string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.order = append(q.order, asyncCall{id: id, name: name})
}

// ready pops the completed calls at the head of the queue; with all set, it
// reports false unless every expected call has completed.
func (q *asyncQueue) ready(all bool) ([]asyncCall, []*tools.Result, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if all {
		for _, c := range q.order {
			if _, ok := q.done[c.id]; !ok {
				return nil, nil, false
			}
		}
	}
	var calls []asyncCall
	var results []*tools.Result
	for len(q.order) > 0 {
		res, ok := q.done[q.order[0].id]
		if !ok {
			break
		}
		calls = append(calls, q.order[0])
		results = append(results, res)
		delete(q.done, q.order[0].id)
		q.order = q.order[1:]
	}
	return calls, results, true
}

// deliverAsync appends the completed asynchronous results to the conversation,
// in call order, before the next model call. With Options.AwaitAsync it first
// waits for every pending completion.
func (r *runner) deliverAsync(ctx context.Context) error {
	for {
		calls, results, ok := r.async.ready(r.opts.AwaitAsync)
		if ok {
			for i, c := range calls {
				r.emit(Event{Kind: EventAsyncResult, CallID: c.id, Tool: c.name, Result: results[i]})
				r.result.Messages = append(r.result.Messages, AsyncResultMessage(c.id, c.name, results[i]))
			}
			return nil
		}
		select {
		case <-r.async.notify:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// AsyncResultMessage is the message that delivers an asynchronous call's
// completion to the model. It is a user message, since the call's tool message
// (saying it started) has already been sent.
func AsyncResultMessage(callID, name string, res *tools.Result) llm.Message {
	return llm.UserMessage(fmt.Sprintf("[result of %s call %s, completed in the background]\n%s", name, callID, res.Content))
}
