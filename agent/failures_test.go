package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

var numberSchema = []byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`)

// TestEveryFailureIsAToolMessage runs one failing call per case and checks the
// kind of its result and the non-empty tool message the model reads next.
func TestEveryFailureIsAToolMessage(t *testing.T) {
	var executed atomic.Int32
	number := tools.Func(tools.Spec{Name: "number", Parameters: numberSchema}, func(context.Context, tools.Call) (*tools.Result, error) {
		executed.Add(1)
		return tools.Success("ok"), nil
	})
	failing := tools.Func(tools.Spec{Name: "failing"}, func(context.Context, tools.Call) (*tools.Result, error) {
		executed.Add(1)
		return nil, errors.New("disk full")
	})
	kinded := tools.Func(tools.Spec{Name: "kinded"}, func(context.Context, tools.Call) (*tools.Result, error) {
		executed.Add(1)
		return nil, tools.Errorf(tools.KindTransient, "rate limited")
	})
	panicking := tools.Func(tools.Spec{Name: "panicking"}, func(context.Context, tools.Call) (*tools.Result, error) {
		executed.Add(1)
		panic("nil map")
	})
	slow := tools.Func(tools.Spec{Name: "slow", Timeout: time.Second}, func(ctx context.Context, _ tools.Call) (*tools.Result, error) {
		executed.Add(1)
		if err := clock.FromContext(ctx).Sleep(ctx, 5*time.Second); err != nil {
			return nil, err
		}
		return tools.Success("too late"), nil
	})
	ignoresDeadline := tools.Func(tools.Spec{Name: "stubborn", Timeout: time.Second}, func(ctx context.Context, _ tools.Call) (*tools.Result, error) {
		executed.Add(1)
		_ = clock.FromContext(ctx).Sleep(ctx, 5*time.Second) // ignores the error
		return tools.Success("finished anyway"), nil
	})
	for _, tc := range []struct {
		name     string
		call     llm.ToolCall
		opts     agent.Options
		kind     tools.FailureKind
		contains string
		executed int32
		duration time.Duration
	}{
		{name: "unknown tool", call: call("c1", "nosuch", `{}`), kind: tools.KindNotFound, contains: `no tool named "nosuch"`},
		{name: "invalid arguments", call: call("c1", "number", `{"n":"x"}`), kind: tools.KindValidation, contains: "invalid arguments for number"},
		{name: "missing field", call: call("c1", "number", `{}`), kind: tools.KindValidation, contains: "n"},
		{name: "unparseable without repairer", call: call("c1", "number", `{"n":1`), kind: tools.KindValidation, contains: "not valid JSON"},
		{name: "unrepairable", call: call("c1", "number", `{"n":1`), opts: agent.Options{Repairer: failingRepairer{}}, kind: tools.KindValidation, contains: "could not be repaired: unbalanced braces"},
		{name: "repaired", call: call("c1", "number", `{"n":1} trailing`), opts: agent.Options{Repairer: trimRepairer{}}, executed: 1},
		{name: "blocked", call: call("c1", "number", `{"n":1}`), opts: agent.Options{Hooks: agent.Hooks{Before: func(context.Context, *agent.HookCall) error {
			return errors.New("not on Sundays")
		}}}, kind: tools.KindBlocked, contains: "not on Sundays"},
		{name: "tool error", call: call("c1", "failing", `{}`), kind: tools.KindFailed, contains: "disk full", executed: 1},
		{name: "tool error with a kind", call: call("c1", "kinded", `{}`), kind: tools.KindTransient, contains: "rate limited", executed: 1},
		{name: "panic", call: call("c1", "panicking", `{}`), kind: tools.KindPanic, contains: "nil map", executed: 1},
		{name: "virtual timeout", call: call("c1", "slow", `{}`), kind: tools.KindTimeout, executed: 1, duration: time.Second},
		{name: "virtual timeout ignored by the tool", call: call("c1", "stubborn", `{}`), kind: tools.KindTimeout, contains: "did not finish within 1s", executed: 1, duration: time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			executed.Store(0)
			reg := newRegistry(t, number, failing, kinded, panicking, slow, ignoresDeadline)
			model := script(respond(tc.call), final("done"))
			opts := tc.opts
			opts.Clock = virtual()
			run := mustRun(t, model, reg, &opts)
			rec := run.Turns[0].Calls[0]
			if rec.Result.Kind() != tc.kind {
				t.Errorf("kind %q, want %q (%s)", rec.Result.Kind(), tc.kind, rec.Result.Content)
			}
			if !strings.Contains(rec.Result.Content, tc.contains) {
				t.Errorf("content %q does not contain %q", rec.Result.Content, tc.contains)
			}
			if tc.kind != "" && !strings.HasPrefix(rec.Result.Content, "error ("+string(tc.kind)+"): ") {
				t.Errorf("content %q does not name its kind", rec.Result.Content)
			}
			if executed.Load() != tc.executed {
				t.Errorf("executed %d times, want %d", executed.Load(), tc.executed)
			}
			if rec.Duration != tc.duration {
				t.Errorf("duration %v, want %v", rec.Duration, tc.duration)
			}
			next := toolMessages(model.request(t, 2).Messages)
			if len(next) != 1 || next[0] != "c1="+rec.Result.Content || rec.Result.Content == "" {
				t.Errorf("the model read %q, want one non-empty message with the result %q", next, rec.Result.Content)
			}
		})
	}
}

func TestRepairIsRecorded(t *testing.T) {
	log := &eventLog{}
	reg := newRegistry(t, echo("echo"))
	run := mustRun(t, script(respond(call("c1", "echo", `{"a":1} xyz`)), final("done")), reg,
		&agent.Options{Clock: virtual(), Repairer: trimRepairer{}, Observer: log.observe})
	rec := run.Turns[0].Calls[0]
	equalStrings(t, "repairs", rec.Repairs, []string{"trim_trailing"})
	if string(rec.Arguments) != `{"a":1}` || rec.Result.Content != `echo:{"a":1}` {
		t.Errorf("arguments %s, result %q", rec.Arguments, rec.Result.Content)
	}
	rep := log.ofKind(agent.EventRepair)
	if len(rep) != 1 || rep[0].CallID != "c1" || !equal(rep[0].Repairs, []string{"trim_trailing"}) {
		t.Errorf("repair events %+v", rep)
	}
	equalStrings(t, "events", log.kinds()[3:6], []string{"repair:c1", "tool_start:c1", "tool_end:c1"})
}

func equal(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// TestRealClockTimeoutAbandonsTheCall uses the wall clock: the tool blocks on
// its context until the few-millisecond timeout cancels it. Run must not
// return before the abandoned execution has returned.
func TestRealClockTimeoutAbandonsTheCall(t *testing.T) {
	defer goleak.VerifyNone(t)
	release := make(chan struct{})
	var returned atomic.Bool
	blocker := tools.Func(tools.Spec{Name: "block"}, func(ctx context.Context, _ tools.Call) (*tools.Result, error) {
		<-ctx.Done()
		<-release // held until the run has ended
		returned.Store(true)
		return nil, ctx.Err()
	})
	log := &eventLog{}
	observe := func(e agent.Event) {
		log.observe(e)
		if e.Kind == agent.EventRunEnd {
			close(release)
		}
	}
	model := script(respond(call("c1", "block", `{}`)), final("done"))
	run := mustRun(t, model, newRegistry(t, blocker), &agent.Options{ToolTimeout: 5 * time.Millisecond, Observer: observe})
	if !returned.Load() {
		t.Error("Run returned before the abandoned execution returned")
	}
	res := run.Turns[0].Calls[0].Result
	if res.Kind() != tools.KindTimeout || !strings.Contains(res.Content, "did not finish within 5ms and was abandoned") {
		t.Errorf("result %+v", res)
	}
	if run.Termination.Reason != agent.ReasonFinalText {
		t.Errorf("reason %q", run.Termination.Reason)
	}
}

func TestCancellationWhileAToolRuns(t *testing.T) {
	defer goleak.VerifyNone(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	running := make(chan struct{})
	blocker := tools.Func(tools.Spec{Name: "block"}, func(ctx context.Context, _ tools.Call) (*tools.Result, error) {
		close(running)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	go func() {
		<-running
		cancel()
	}()
	model := script(respond(call("c1", "block", `{}`)), final("never"))
	run, err := agent.Run(ctx, model, newRegistry(t, blocker), []llm.Message{llm.UserMessage("go")}, &agent.Options{Clock: virtual()})
	if !errors.Is(err, context.Canceled) || run.Termination.Reason != agent.ReasonCancelled {
		t.Fatalf("err %v, reason %q", err, run.Termination.Reason)
	}
	res := run.Turns[0].Calls[0].Result
	if res.Kind() != tools.KindCancelled || res.Content == "" {
		t.Errorf("result %+v, want cancelled", res)
	}
	equalStrings(t, "tool messages", toolMessages(run.Messages), []string{"c1=" + res.Content})
	if model.count() != 1 {
		t.Errorf("model called %d times", model.count())
	}
}

func TestCancellationWithARealClockTimeout(t *testing.T) {
	defer goleak.VerifyNone(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	running := make(chan struct{})
	blocker := tools.Func(tools.Spec{Name: "block"}, func(ctx context.Context, _ tools.Call) (*tools.Result, error) {
		close(running)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	go func() {
		<-running
		cancel()
	}()
	model := script(respond(call("c1", "block", `{}`)), final("never"))
	run, err := agent.Run(ctx, model, newRegistry(t, blocker), nil, &agent.Options{ToolTimeout: time.Hour})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if res := run.Turns[0].Calls[0].Result; res.Kind() != tools.KindCancelled {
		t.Errorf("result %+v, want cancelled", res)
	}
}

// TestToolTimeoutIsOnlyTheDefault: Options.ToolTimeout bounds a tool whose
// spec sets no Timeout; a tool's own Spec.Timeout wins over it, longer or
// shorter.
func TestToolTimeoutIsOnlyTheDefault(t *testing.T) {
	sleeper := func(name string, timeout time.Duration) tools.Tool {
		return tools.Func(tools.Spec{Name: name, Timeout: timeout, Safety: readOnly}, func(ctx context.Context, _ tools.Call) (*tools.Result, error) {
			if err := clock.FromContext(ctx).Sleep(ctx, 2*time.Second); err != nil {
				return nil, err
			}
			return tools.Success("slept"), nil
		})
	}
	for _, tc := range []struct {
		name     string
		spec     time.Duration
		kind     tools.FailureKind
		duration time.Duration
	}{
		{name: "spec longer than the default", spec: 3 * time.Second, duration: 2 * time.Second},
		{name: "spec shorter than the default", spec: 500 * time.Millisecond, kind: tools.KindTimeout, duration: 500 * time.Millisecond},
		{name: "no spec timeout: the default", kind: tools.KindTimeout, duration: time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := mustRun(t, script(respond(call("c1", "sleep", `{}`)), final("done")), newRegistry(t, sleeper("sleep", tc.spec)),
				&agent.Options{Clock: virtual(), ToolTimeout: time.Second})
			rec := run.Turns[0].Calls[0]
			if rec.Result.Kind() != tc.kind || rec.Duration != tc.duration {
				t.Errorf("kind %q after %v, want %q after %v (%s)", rec.Result.Kind(), rec.Duration, tc.kind, tc.duration, rec.Result.Content)
			}
		})
	}
}

// TestEmptySuccessReachesTheModelEmpty: as agent's doc says, a successful
// result reaches the model exactly as the tool returned it, an empty one
// empty (no placeholder text).
func TestEmptySuccessReachesTheModelEmpty(t *testing.T) {
	quiet := tools.Func(tools.Spec{Name: "quiet", Safety: readOnly}, func(context.Context, tools.Call) (*tools.Result, error) {
		return tools.Success(""), nil
	})
	model := script(respond(call("c1", "quiet", `{}`)), final("done"))
	run := mustRun(t, model, newRegistry(t, quiet), &agent.Options{Clock: virtual()})
	if rec := run.Turns[0].Calls[0]; rec.Result.Content != "" || rec.Result.Failed() {
		t.Errorf("record content %q (failed %v), want an empty success", rec.Result.Content, rec.Result.Failed())
	}
	var got []llm.Message
	for _, m := range model.request(t, 2).Messages {
		if m.Role == llm.RoleTool {
			got = append(got, m)
		}
	}
	if len(got) != 1 || got[0].ToolCallID != "c1" || got[0].Content != "" || got[0].IsError {
		t.Errorf("the model read %+v, want one tool message for c1 with empty content, not an error", got)
	}
}
