package agent_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

func TestEachIterationTakesAFreshSnapshot(t *testing.T) {
	hidden := &toggled{Tool: echo("hidden")}
	var reg *tools.Registry
	register := tools.Func(tools.Spec{Name: "register"}, func(context.Context, tools.Call) (*tools.Result, error) {
		if err := reg.Register(echo("late")); err != nil {
			return nil, err
		}
		hidden.off.Store(true)
		return tools.Success("registered"), nil
	})
	reg = newRegistry(t, register, hidden)
	model := script(
		respond(call("c1", "register", `{}`)),
		respond(call("c2", "late", `{"x":1}`)),
		final("done"),
	)
	run := mustRun(t, model, reg, &agent.Options{Clock: virtual()})

	equalStrings(t, "turn 1 tools", model.request(t, 1).ToolNames(), []string{"hidden", "register"})
	equalStrings(t, "turn 2 tools", model.request(t, 2).ToolNames(), []string{"late", "register"})
	equalStrings(t, "turn 2 summary", run.Turns[1].Request.Tools, []string{"late", "register"})
	equalStrings(t, "tool messages", toolMessages(run.Messages), []string{"c1=registered", `c2=late:{"x":1}`})
}

func TestToolUnavailableAtCallTime(t *testing.T) {
	flaky := &toggled{Tool: echo("flaky")}
	reg := newRegistry(t, flaky)
	first := respond(call("c1", "flaky", `{}`))
	first.before = func(req *llm.Request) {
		if !slices.Equal(req.ToolNames(), []string{"flaky"}) {
			t.Errorf("offered %v, want [flaky]", req.ToolNames())
		}
		flaky.off.Store(true) // offered, then gone by the time the call is prepared
	}
	run := mustRun(t, script(first, final("ok")), reg, nil)
	res := run.Turns[0].Calls[0].Result
	if res.Kind() != tools.KindUnavailable || res.Content == "" {
		t.Fatalf("result = %+v, want a non-empty unavailable result", res)
	}
}

// TestBatchRunsConcurrentlyInSourceOrder proves concurrency (each tool waits
// for the other to start, which deadlocks if they run one by one) and makes
// the later call finish first; events and messages still follow source order.
func TestBatchRunsConcurrentlyInSourceOrder(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // only a guard against a hang
	defer cancel()
	aStarted, bStarted, bDone := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var finished []string
	wait := func(ctx context.Context, ch chan struct{}) error {
		select {
		case <-ch:
			return nil
		case <-ctx.Done():
			return errors.New("deadlock: the batch did not run concurrently")
		}
	}
	a := tools.Func(tools.Spec{Name: "a", Safety: readOnly}, func(ctx context.Context, _ tools.Call) (*tools.Result, error) {
		close(aStarted)
		if err := wait(ctx, bStarted); err != nil {
			return nil, err
		}
		if err := wait(ctx, bDone); err != nil {
			return nil, err
		}
		mu.Lock()
		finished = append(finished, "a")
		mu.Unlock()
		return tools.Success("A"), nil
	})
	b := tools.Func(tools.Spec{Name: "b", Safety: readOnly}, func(ctx context.Context, _ tools.Call) (*tools.Result, error) {
		close(bStarted)
		if err := wait(ctx, aStarted); err != nil {
			return nil, err
		}
		mu.Lock()
		finished = append(finished, "b")
		mu.Unlock()
		defer close(bDone)
		return tools.Success("B"), nil
	})
	log := &eventLog{}
	model := script(respond(call("ca", "a", `{}`), call("cb", "b", `{}`)), final("done"))
	run, err := agent.Run(ctx, model, newRegistry(t, a, b), []llm.Message{llm.UserMessage("go")},
		&agent.Options{Clock: virtual(), Observer: log.observe})
	if err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "completion order", finished, []string{"b", "a"})
	equalStrings(t, "events", log.kinds(), []string{
		"run_start", "model_request", "model_response",
		"tool_start:ca", "tool_start:cb", "tool_end:ca", "tool_end:cb", "turn_end",
		"model_request", "model_response", "turn_end", "run_end",
	})
	equalStrings(t, "tool messages", toolMessages(run.Messages), []string{"ca=A", "cb=B"})
	equalStrings(t, "turn 2 messages", toolMessages(model.request(t, 2).Messages), []string{"ca=A", "cb=B"})
}

func TestBatchRunsSequentially(t *testing.T) {
	for _, tc := range []struct {
		name     string
		optMode  tools.ExecutionMode
		toolMode tools.ExecutionMode
	}{
		{"options", tools.ExecutionSequential, ""},
		{"one tool", "", tools.ExecutionSequential},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var running, peak atomic.Int32
			slow := func(name string, mode tools.ExecutionMode) tools.Tool {
				return tools.Func(tools.Spec{Name: name, Execution: mode, Safety: readOnly}, func(ctx context.Context, _ tools.Call) (*tools.Result, error) {
					n := running.Add(1)
					defer running.Add(-1)
					for {
						p := peak.Load()
						if n <= p || peak.CompareAndSwap(p, n) {
							break
						}
					}
					for range 100 {
						runtimeGosched()
					}
					if err := clock.FromContext(ctx).Sleep(ctx, time.Second); err != nil {
						return nil, err
					}
					return tools.Success(name), nil
				})
			}
			reg := newRegistry(t, slow("p1", ""), slow("s", tc.toolMode), slow("p2", ""))
			log := &eventLog{}
			model := script(respond(call("c1", "p1", `{}`), call("c2", "s", `{}`), call("c3", "p2", `{}`)), final("done"))
			mustRun(t, model, reg, &agent.Options{Clock: virtual(), Execution: tc.optMode, Observer: log.observe})
			if peak.Load() != 1 {
				t.Errorf("peak concurrency %d, want 1", peak.Load())
			}
			// Sequential calls start where the previous one ended.
			var ends []time.Time
			for _, e := range log.ofKind(agent.EventToolEnd) {
				ends = append(ends, e.Time)
			}
			if want := []time.Time{at(time.Second), at(2 * time.Second), at(3 * time.Second)}; !slices.Equal(ends, want) {
				t.Errorf("tool_end times %v, want %v", ends, want)
			}
		})
	}
}

func TestParallelCallsOverlapOnTheVirtualClock(t *testing.T) {
	sleeper := tools.Func(tools.Spec{Name: "sleep", Safety: readOnly}, func(ctx context.Context, c tools.Call) (*tools.Result, error) {
		var in struct{ Ms int }
		if err := c.Decode(&in); err != nil {
			return nil, err
		}
		if err := clock.FromContext(ctx).Sleep(ctx, time.Duration(in.Ms)*time.Millisecond); err != nil {
			return nil, err
		}
		return tools.Success("slept"), nil
	})
	log := &eventLog{}
	model := script(respond(call("c1", "sleep", `{"Ms":300}`), call("c2", "sleep", `{"Ms":100}`)), final("done"))
	run := mustRun(t, model, newRegistry(t, sleeper), &agent.Options{Clock: virtual(), Observer: log.observe})
	ends := log.ofKind(agent.EventToolEnd)
	if ends[0].Time != at(300*time.Millisecond) || ends[1].Time != at(100*time.Millisecond) {
		t.Errorf("tool_end times %v, %v; want +300ms, +100ms", ends[0].Time, ends[1].Time)
	}
	if d := run.Turns[0].Calls[1].Duration; d != 100*time.Millisecond {
		t.Errorf("duration of c2 = %v, want 100ms", d)
	}
	// The run's clock moved to the latest end before the next turn.
	if req := log.ofKind(agent.EventModelRequest)[1]; req.Time != at(300*time.Millisecond) {
		t.Errorf("second model_request at %v, want +300ms", req.Time)
	}
}

// TestHistoryKeepsOneCopyOfEachCall: the history's assistant message
// shares the calls of the response as received (a long run would keep every
// call twice), and when the loop must give a call an id it changes a copy:
// the response it received, which a model may serve again, keeps its empty
// id.
func TestHistoryKeepsOneCopyOfEachCall(t *testing.T) {
	reg := newRegistry(t, echo("e"))
	named := &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "c1", Name: "e", Arguments: `{}`})}
	unnamed := &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{Name: "e", Arguments: `{}`})}
	for _, resp := range []*llm.Response{named, unnamed, unnamed} {
		model := &replayModel{resps: []*llm.Response{resp, {Message: llm.AssistantMessage("done")}}}
		run, err := agent.Run(t.Context(), model, reg, []llm.Message{llm.UserMessage("go")}, &agent.Options{Clock: virtual()})
		if err != nil {
			t.Fatal(err)
		}
		var asked *llm.Message
		for i := range run.Messages {
			if len(run.Messages[i].ToolCalls) > 0 {
				asked = &run.Messages[i]
			}
		}
		if asked == nil {
			t.Fatalf("no message with calls in %v", run.Messages)
		}
		shared := &asked.ToolCalls[0] == &run.Turns[0].Response.Message.ToolCalls[0]
		switch resp {
		case named:
			if !shared {
				t.Error("the history holds a second copy of the response's calls")
			}
		default:
			if shared || asked.ToolCalls[0].ID != "call_gen_1" || resp.Message.ToolCalls[0].ID != "" {
				t.Errorf("an id given by the loop: history %q, response %q; want call_gen_1 in a copy, the response unchanged",
					asked.ToolCalls[0].ID, resp.Message.ToolCalls[0].ID)
			}
		}
	}
}
