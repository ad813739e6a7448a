package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

func TestBeforeHookBlocks(t *testing.T) {
	guarded := &counted{spec: tools.Spec{Name: "rm", Safety: tools.Safety{SideEffects: tools.SideEffectWrite}}}
	var seen []string
	opts := &agent.Options{Clock: virtual(), Hooks: agent.Hooks{Before: func(_ context.Context, c *agent.HookCall) error {
		seen = append(seen, c.ID+" "+c.Name+" "+string(c.Arguments)+" "+string(c.Spec.Safety.SideEffects))
		if c.Name == "rm" {
			return errors.New("deleting is not allowed")
		}
		return nil
	}}}
	model := script(respond(call("c1", "rm", `{"path":"x"}`), call("c2", "echo", `{}`)), final("done"))
	run := mustRun(t, model, newRegistry(t, guarded, echo("echo")), opts)
	equalStrings(t, "hook saw", seen, []string{`c1 rm {"path":"x"} write`, "c2 echo {} read"})
	if guarded.n.Load() != 0 {
		t.Errorf("the blocked tool ran %d times", guarded.n.Load())
	}
	rec := run.Turns[0].Calls[0]
	if rec.Result.Kind() != tools.KindBlocked || len(rec.Attempts) != 0 {
		t.Errorf("record %+v", rec)
	}
	equalStrings(t, "model read", toolMessages(model.request(t, 2).Messages), []string{
		"c1=error (blocked): the call to rm was blocked: deleting is not allowed", "c2=echo:{}",
	})
}

func TestBeforeHookRewritesArguments(t *testing.T) {
	number := &counted{spec: tools.Spec{Name: "number", Parameters: numberSchema}}
	for _, tc := range []struct {
		name    string
		rewrite string
		kind    tools.FailureKind
		content string
		runs    int32
		started string // arguments of the tool_start event
	}{
		{name: "valid", rewrite: `{"n":"42"}`, content: `number ok {"n":42}`, runs: 1, started: `{"n":42}`},
		{name: "valid as is", rewrite: `{"n":7}`, content: `number ok {"n":7}`, runs: 1, started: `{"n":7}`},
		{name: "invalid", rewrite: `{"n":"many"}`, kind: tools.KindValidation, content: "invalid arguments for number", started: `{"n":"many"}`},
		{name: "unparseable", rewrite: `{"n":`, kind: tools.KindValidation, content: "not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			number.n.Store(0)
			log := &eventLog{}
			opts := &agent.Options{Clock: virtual(), Observer: log.observe, Hooks: agent.Hooks{Before: func(_ context.Context, c *agent.HookCall) error {
				c.Arguments = json.RawMessage(tc.rewrite)
				return nil
			}}}
			model := script(respond(call("c1", "number", `{"n":1}`)), final("done"))
			run := mustRun(t, model, newRegistry(t, number), opts)
			rec := run.Turns[0].Calls[0]
			if rec.Result.Kind() != tc.kind || !strings.Contains(rec.Result.Content, tc.content) {
				t.Errorf("result %q (%s), want kind %q containing %q", rec.Result.Content, rec.Result.Kind(), tc.kind, tc.content)
			}
			if number.n.Load() != tc.runs {
				t.Errorf("ran %d times, want %d", number.n.Load(), tc.runs)
			}
			if rec.Call.Arguments != `{"n":1}` {
				t.Errorf("the record lost the call as emitted: %q", rec.Call.Arguments)
			}
			if string(rec.Arguments) != tc.started {
				t.Errorf("record arguments %s, want %s", rec.Arguments, tc.started)
			}
			if rec.ArgumentsUnchanged {
				t.Errorf("arguments rewritten by the hook are marked unchanged")
			}
			// tool_start carries the arguments as executed, after the hook.
			if st := log.ofKind(agent.EventToolStart); string(st[0].Arguments) != tc.started {
				t.Errorf("tool_start arguments %s, want %s", st[0].Arguments, tc.started)
			}
		})
	}
}

func TestArgumentsUnchangedRecorded(t *testing.T) {
	number := &counted{spec: tools.Spec{Name: "number", Parameters: numberSchema}}
	kept := &agent.Options{Clock: virtual(), Hooks: agent.Hooks{Before: func(context.Context, *agent.HookCall) error { return nil }}}
	for _, opts := range []*agent.Options{{Clock: virtual()}, kept} {
		model := script(respond(call("c1", "number", `{"n": 1}`), call("c2", "number", `{"n": "2"}`)), final("done"))
		run := mustRun(t, model, newRegistry(t, number), opts)
		calls := run.Turns[0].Calls
		if !calls[0].ArgumentsUnchanged || calls[1].ArgumentsUnchanged {
			t.Errorf("hook %v: unchanged %v (valid) and %v (coerced), want true and false",
				opts.Hooks.Before != nil, calls[0].ArgumentsUnchanged, calls[1].ArgumentsUnchanged)
		}
	}
}

func TestAfterHookRewritesTheResult(t *testing.T) {
	var seen []string
	opts := &agent.Options{Clock: virtual(), Hooks: agent.Hooks{After: func(_ context.Context, c agent.HookCall, res *tools.Result) *tools.Result {
		seen = append(seen, c.ID+"="+res.Content)
		if c.ID == "c2" {
			return res // kept
		}
		return tools.Success("[redacted] " + res.Content)
	}}}
	model := script(respond(call("c1", "echo", `{"s":1}`), call("c2", "echo", `{"s":2}`)), final("done"))
	run := mustRun(t, model, newRegistry(t, echo("echo")), opts)
	equalStrings(t, "after hook saw (source order)", seen, []string{`c1=echo:{"s":1}`, `c2=echo:{"s":2}`})
	equalStrings(t, "model read", toolMessages(model.request(t, 2).Messages), []string{`c1=[redacted] echo:{"s":1}`, `c2=echo:{"s":2}`})
	if got := run.Turns[0].Calls[0].Result.Content; got != `[redacted] echo:{"s":1}` {
		t.Errorf("record result %q", got)
	}
	// The attempt keeps what the tool returned.
	if got := run.Turns[0].Calls[0].Attempts[0].Result.Content; got != `echo:{"s":1}` {
		t.Errorf("attempt result %q", got)
	}
}

func TestPanickingHookEndsTheRun(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hooks agent.Hooks
		where string
	}{
		{"before", agent.Hooks{Before: func(context.Context, *agent.HookCall) error { panic("before went wrong") }}, "before hook on call c1: before went wrong"},
		{"after", agent.Hooks{After: func(context.Context, agent.HookCall, *tools.Result) *tools.Result { panic("after went wrong") }}, "after hook on call c1: after went wrong"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &eventLog{}
			model := script(respond(call("c1", "echo", `{}`)), final("never"))
			run, err := agent.Run(context.Background(), model, newRegistry(t, echo("echo")), []llm.Message{llm.UserMessage("go")},
				&agent.Options{Clock: virtual(), Hooks: tc.hooks, Observer: log.observe})
			if !errors.Is(err, agent.ErrHookPanic) || run.Termination.Reason != agent.ReasonHookError {
				t.Fatalf("err %v, reason %q; want ErrHookPanic, hook_error", err, run.Termination.Reason)
			}
			if !strings.Contains(err.Error(), tc.where) {
				t.Errorf("err %q does not contain %q", err, tc.where)
			}
			if model.count() != 1 {
				t.Errorf("model called %d times", model.count())
			}
			kinds := log.kinds()
			if kinds[len(kinds)-1] != "run_end" {
				t.Errorf("events end with %q", kinds[len(kinds)-1])
			}
		})
	}
}

// TestBeforeHookRewriteKeepsTheOriginalRepairs: the repairs made to the
// arguments as the model wrote them stay in the record after a before hook
// rewrites them, followed by any repairs of the rewrite.
func TestBeforeHookRewriteKeepsTheOriginalRepairs(t *testing.T) {
	for _, tc := range []struct {
		name, rewrite string
		repairs       []string
	}{
		{name: "clean rewrite", rewrite: `{"n":2}`, repairs: []string{"trim_trailing"}},
		{name: "rewrite needing repair", rewrite: `{"n":3} more`, repairs: []string{"trim_trailing", "trim_trailing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			number := &counted{spec: tools.Spec{Name: "number", Parameters: numberSchema}}
			log := &eventLog{}
			opts := &agent.Options{Clock: virtual(), Repairer: trimRepairer{}, Observer: log.observe, Hooks: agent.Hooks{Before: func(_ context.Context, c *agent.HookCall) error {
				c.Arguments = json.RawMessage(tc.rewrite)
				return nil
			}}}
			run := mustRun(t, script(respond(call("c1", "number", `{"n":1} trailing`)), final("done")), newRegistry(t, number), opts)
			rec := run.Turns[0].Calls[0]
			equalStrings(t, "record repairs", rec.Repairs, tc.repairs)
			if rep := log.ofKind(agent.EventRepair); len(rep) != 1 {
				t.Errorf("%d repair events, want 1", len(rep))
			} else {
				equalStrings(t, "repair event", rep[0].Repairs, tc.repairs)
			}
			if number.n.Load() != 1 || rec.Result.Failed() {
				t.Errorf("ran %d times, result %q", number.n.Load(), rec.Result.Content)
			}
		})
	}
}
