package agent_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// TestEventStream checks a whole stream: sequence numbers, turns, call ids,
// times on the virtual clock and the documented order within a turn.
func TestEventStream(t *testing.T) {
	lookup := tools.Func(tools.Spec{Name: "lookup", Safety: tools.Safety{Pure: true}}, func(ctx context.Context, _ tools.Call) (*tools.Result, error) {
		return tools.Success("found"), clock.FromContext(ctx).Sleep(ctx, 50*time.Millisecond)
	})
	attempts := 0
	fetch := tools.Func(tools.Spec{Name: "fetch", Safety: tools.Safety{SideEffects: tools.SideEffectRead, Idempotent: true}}, func(ctx context.Context, _ tools.Call) (*tools.Result, error) {
		attempts++
		tools.ReportProgress(ctx, fmt.Sprint("attempt ", attempts))
		if err := clock.FromContext(ctx).Sleep(ctx, 10*time.Millisecond); err != nil {
			return nil, err
		}
		if attempts == 1 {
			return tools.TransientFailure("busy"), nil
		}
		return tools.Success("fetched"), nil
	})
	log := &eventLog{}
	model := script(
		respond(call("c1", "lookup", `{"k":1}`), call("c2", "fetch", `{} xyz`), call("c3", "nosuch", `{}`)),
		respond(call("c4", "lookup", `{"k":1}`)),
		final("done"),
	)
	mustRun(t, model, newRegistry(t, lookup, fetch), &agent.Options{
		Clock: virtual(), Memoize: true, Repairer: trimRepairer{}, Observer: log.observe,
		Retry: &agent.RetryPolicy{Attempts: 2, Backoff: 100 * time.Millisecond},
	})
	ms := time.Millisecond
	want := []string{
		"1 run_start t0  +0s",
		"2 model_request t1  +0s",
		"3 model_response t1  +0s",
		"4 tool_start t1 c1 +0s",
		"5 repair t1 c2 +0s",
		"6 tool_start t1 c2 +0s",
		"7 tool_start t1 c3 +0s",
		"8 tool_end t1 c1 +50ms",
		"9 tool_update t1 c2 +0s",
		"10 retry t1 c2 +10ms",
		"11 tool_update t1 c2 +110ms",
		"12 tool_end t1 c2 +120ms",
		"13 tool_end t1 c3 +120ms",
		"14 turn_end t1  +120ms",
		"15 model_request t2  +120ms",
		"16 model_response t2  +120ms",
		"17 tool_start t2 c4 +120ms",
		"18 memo_hit t2 c4 +120ms",
		"19 turn_end t2  +120ms",
		"20 model_request t3  +120ms",
		"21 model_response t3  +120ms",
		"22 turn_end t3  +120ms",
		"23 run_end t3  +120ms",
	}
	var got []string
	for _, e := range log.all() {
		got = append(got, fmt.Sprintf("%d %s t%d %s +%v", e.Seq, e.Kind, e.Turn, e.CallID, e.Time.Sub(clock.Epoch)))
	}
	equalStrings(t, "events", got, want)

	ev := log.all()
	if ev[9].Backoff != 100*ms || ev[9].Attempt != 1 || ev[8].Message != "attempt 1" || ev[10].Message != "attempt 2" {
		t.Errorf("retry/update details: %+v %+v %+v", ev[8], ev[9], ev[10])
	}
	if ev[11].Duration != 120*ms || ev[11].Attempt != 2 || ev[11].Result.Content != "fetched" || ev[7].Duration != 50*ms {
		t.Errorf("tool_end details: %+v / %+v", ev[11], ev[7])
	}
	if ev[12].Result.Kind() != tools.KindNotFound || ev[12].Attempt != 0 {
		t.Errorf("not_found tool_end %+v", ev[12])
	}
	if ev[1].Request == nil || ev[2].Response == nil || ev[22].Termination == nil || ev[22].Termination.Reason != agent.ReasonFinalText {
		t.Errorf("payloads missing")
	}
	if string(ev[3].Arguments) != `{"k":1}` || ev[3].Tool != "lookup" || string(ev[5].Arguments) != `{}` {
		t.Errorf("tool_start arguments %s, %s", ev[3].Arguments, ev[5].Arguments)
	}
}

// TestRunEndTurnCountsAnsweredTurns: a model call that fails, or that the
// run's cancellation interrupts, is not a turn: the run_end event's Turn is
// the number of turns the model answered, as in RunResult.Turns.
func TestRunEndTurnCountsAnsweredTurns(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reason agent.Reason
		fail   func(cancel context.CancelFunc) step
	}{
		{"model error", agent.ReasonModelError, func(context.CancelFunc) step {
			return step{err: providerErr(llm.ErrAuth, 401, 0)}
		}},
		{"cancelled during the call", agent.ReasonCancelled, func(cancel context.CancelFunc) step {
			return step{err: providerErr(llm.ErrOverloaded, 503, 0), before: func(*llm.Request) { cancel() }}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			log := &eventLog{}
			model := script(respond(call("c1", "echo", `{"text":"hi"}`)), tc.fail(cancel))
			run, _ := agent.Run(ctx, model, newRegistry(t, echo("echo")), nil, &agent.Options{Clock: virtual(), Observer: log.observe,
				ModelRetry: &agent.ModelRetryPolicy{Attempts: 3}})
			if run.Termination.Reason != tc.reason || len(run.Turns) != 1 {
				t.Fatalf("run ended %v with %d turns; want %v after 1", run.Termination.Reason, len(run.Turns), tc.reason)
			}
			if end := log.ofKind(agent.EventRunEnd); len(end) != 1 || end[0].Turn != 1 {
				t.Errorf("run_end events %+v; want one at turn 1", end)
			}
		})
	}
}
