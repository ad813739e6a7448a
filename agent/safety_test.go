package agent_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// TestUndeclaredSafetyRunsAlone: a tool whose Spec leaves Safety zero may
// change the world, so each of its calls runs alone. On the virtual clock two
// 100ms calls of it end at +100ms and +200ms; declared read-only, they
// overlap and both end at +100ms.
func TestUndeclaredSafetyRunsAlone(t *testing.T) {
	for _, tc := range []struct {
		name   string
		safety tools.Safety
		ends   []time.Duration
	}{
		{"undeclared", tools.Safety{}, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}},
		{"declared read", tools.Safety{SideEffects: tools.SideEffectRead}, []time.Duration{100 * time.Millisecond, 100 * time.Millisecond}},
		{"declared pure", tools.Safety{Pure: true}, []time.Duration{100 * time.Millisecond, 100 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refund := tools.Func(tools.Spec{Name: "refund", Safety: tc.safety}, func(ctx context.Context, _ tools.Call) (*tools.Result, error) {
				return tools.Success("refunded"), clock.FromContext(ctx).Sleep(ctx, 100*time.Millisecond)
			})
			log := &eventLog{}
			model := script(respond(call("c1", "refund", `{"order":1}`), call("c2", "refund", `{"order":2}`)), final("done"))
			mustRun(t, model, newRegistry(t, refund), &agent.Options{Clock: virtual(), Observer: log.observe})
			ends := log.ofKind(agent.EventToolEnd)
			if len(ends) != 2 || ends[0].Time != at(tc.ends[0]) || ends[1].Time != at(tc.ends[1]) {
				t.Errorf("tool_end events %v, want at +%v and +%v", ends, tc.ends[0], tc.ends[1])
			}
		})
	}
}

func TestUndeclaredSafetyIsNeitherMemoisedNorRetried(t *testing.T) {
	var calls atomic.Int32
	refund := tools.Func(tools.Spec{Name: "refund"}, func(context.Context, tools.Call) (*tools.Result, error) {
		if calls.Add(1) == 1 {
			return tools.TransientFailure("gateway busy"), nil
		}
		return tools.Success("refunded"), nil
	})
	model := script(
		respond(call("c1", "refund", `{"order":1}`)),
		respond(call("c2", "refund", `{"order":1}`)),
		respond(call("c3", "refund", `{"order":1}`)),
		final("done"),
	)
	run := mustRun(t, model, newRegistry(t, refund), &agent.Options{
		Clock: virtual(), Memoize: true, Retry: &agent.RetryPolicy{Attempts: 3},
	})
	if got := calls.Load(); got != 3 {
		t.Errorf("the tool ran %d times for 3 calls, want 3 (no retry of c1, no memo for c3)", got)
	}
	c1 := run.Turns[0].Calls[0]
	if len(c1.Attempts) != 1 || c1.Result.Kind() != tools.KindTransient {
		t.Errorf("c1: %d attempts, result %s; want 1 attempt ending transient", len(c1.Attempts), c1.Result.Kind())
	}
	if run.Turns[2].Calls[0].Memoized {
		t.Error("c3 was memoised")
	}
}

// TestBatchRunsAtMostMaxConcurrentCallsAtOnce: a response of 48 read-only
// calls runs them agent.MaxConcurrentCalls at a time, not all at once.
// Each call waits until that many have arrived (so they surely overlap)
// and counts how many run; the most seen at once is exactly the limit. On
// the virtual clock the 100ms calls still all end at +100ms, as when each
// had a goroutine of its own, and each result is its own call's.
func TestBatchRunsAtMostMaxConcurrentCallsAtOnce(t *testing.T) {
	const n = 3 * agent.MaxConcurrentCalls
	var (
		mu            sync.Mutex
		running, most int
		arrived       int
		release       = make(chan struct{})
	)
	read := tools.Func(tools.Spec{Name: "read", Safety: tools.Safety{SideEffects: tools.SideEffectRead}}, func(ctx context.Context, c tools.Call) (*tools.Result, error) {
		mu.Lock()
		running++
		most = max(most, running)
		arrived++
		wait := release
		if arrived == agent.MaxConcurrentCalls {
			// The last of a round lets its round go and starts the next.
			arrived, release = 0, make(chan struct{})
			close(wait)
		}
		mu.Unlock()
		<-wait
		mu.Lock()
		running--
		mu.Unlock()
		return tools.Success(string(c.Arguments)), clock.FromContext(ctx).Sleep(ctx, 100*time.Millisecond)
	})
	var calls []llm.ToolCall
	for i := range n {
		calls = append(calls, call(fmt.Sprintf("c%d", i), "read", fmt.Sprintf(`{"n":%d}`, i)))
	}
	log := &eventLog{}
	run := mustRun(t, script(respond(calls...), final("done")), newRegistry(t, read), &agent.Options{Clock: virtual(), Observer: log.observe})
	if most != agent.MaxConcurrentCalls {
		t.Errorf("at most %d calls ran at once, want %d", most, agent.MaxConcurrentCalls)
	}
	got := run.Turns[0].Calls
	if len(got) != n {
		t.Fatalf("%d calls recorded, want %d", len(got), n)
	}
	for i, c := range got {
		if want := fmt.Sprintf(`{"n":%d}`, i); c.Call.ID != fmt.Sprintf("c%d", i) || c.Result.Content != want {
			t.Errorf("call %d: %s answered %q, want c%d answered %q", i, c.Call.ID, c.Result.Content, i, want)
		}
	}
	for _, e := range log.ofKind(agent.EventToolEnd) {
		if e.Time != at(100*time.Millisecond) {
			t.Errorf("%s ended at %v, want +100ms: the calls of a batch overlap in virtual time", e.CallID, e.Time)
		}
	}
}
