package agent_test

import (
	"context"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

func memoTools() (pure, impure, writer, effector, failing *counted) {
	pure = &counted{spec: tools.Spec{Name: "lookup", Safety: tools.Safety{Pure: true}}}
	impure = &counted{spec: tools.Spec{Name: "now", Safety: tools.Safety{SideEffects: tools.SideEffectRead}}}
	writer = &counted{spec: tools.Spec{Name: "write", Safety: tools.Safety{SideEffects: tools.SideEffectWrite}}}
	effector = &counted{spec: tools.Spec{Name: "touch"}, fn: func(context.Context, tools.Call) (*tools.Result, error) {
		return tools.Success("touched", tools.FileChange(tools.OpCreate, "a.txt", 0)), nil
	}}
	failing = &counted{spec: tools.Spec{Name: "bad", Safety: tools.Safety{Pure: true}}, fn: func(context.Context, tools.Call) (*tools.Result, error) {
		return tools.Fail(tools.KindFailed, "no"), nil
	}}
	return
}

func TestMemoisation(t *testing.T) {
	for _, tc := range []struct {
		name     string
		memoize  bool
		steps    []step
		tool     string // the tool whose executions are counted
		runs     int32
		memoHits []string // call ids answered from the memo
	}{
		{
			name:    "identical call to a pure tool, keys reordered",
			memoize: true,
			steps: []step{
				respond(call("c1", "lookup", `{"a":1,"b":2}`)),
				respond(call("c2", "lookup", `{"b":2,"a":1}`)),
			},
			tool: "lookup", runs: 1, memoHits: []string{"c2"},
		},
		{
			name:    "different arguments",
			memoize: true,
			steps: []step{
				respond(call("c1", "lookup", `{"a":1}`)),
				respond(call("c2", "lookup", `{"a":2}`)),
				respond(call("c3", "lookup", `{"a":1}`)),
			},
			tool: "lookup", runs: 2, memoHits: []string{"c3"},
		},
		{
			name:    "a write clears the memo",
			memoize: true,
			steps: []step{
				respond(call("c1", "lookup", `{}`)),
				respond(call("c2", "write", `{}`)),
				respond(call("c3", "lookup", `{}`)),
			},
			tool: "lookup", runs: 2,
		},
		{
			name:    "a file effect clears the memo",
			memoize: true,
			steps: []step{
				respond(call("c1", "lookup", `{}`)),
				respond(call("c2", "touch", `{}`)),
				respond(call("c3", "lookup", `{}`)),
				respond(call("c4", "lookup", `{}`)),
			},
			tool: "lookup", runs: 2, memoHits: []string{"c4"},
		},
		{
			name:    "a write earlier in the same batch",
			memoize: true,
			steps: []step{
				respond(call("c1", "lookup", `{}`)),
				respond(call("c2", "write", `{}`), call("c3", "lookup", `{}`)),
			},
			tool: "lookup", runs: 2,
		},
		{
			name:    "failures are never memoised",
			memoize: true,
			steps: []step{
				respond(call("c1", "bad", `{}`)),
				respond(call("c2", "bad", `{}`)),
			},
			tool: "bad", runs: 2,
		},
		{
			name:    "non-pure tools are never memoised",
			memoize: true,
			steps: []step{
				respond(call("c1", "now", `{}`)),
				respond(call("c2", "now", `{}`)),
			},
			tool: "now", runs: 2,
		},
		{
			name: "without Memoize",
			steps: []step{
				respond(call("c1", "lookup", `{}`)),
				respond(call("c2", "lookup", `{}`)),
			},
			tool: "lookup", runs: 2,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pure, impure, writer, effector, failing := memoTools()
			counts := map[string]*counted{"lookup": pure, "now": impure, "bad": failing}
			log := &eventLog{}
			model := script(append(tc.steps, final("done"))...)
			run := mustRun(t, model, newRegistry(t, pure, impure, writer, effector, failing),
				&agent.Options{Clock: virtual(), Memoize: tc.memoize, Observer: log.observe})
			if n := counts[tc.tool].n.Load(); n != tc.runs {
				t.Errorf("%s executed %d times, want %d", tc.tool, n, tc.runs)
			}
			var hits []string
			for _, e := range log.ofKind(agent.EventMemoHit) {
				hits = append(hits, e.CallID)
			}
			equalStrings(t, "memo hits", hits, tc.memoHits)
			for _, turn := range run.Turns {
				for _, rec := range turn.Calls {
					hit := false
					for _, id := range tc.memoHits {
						hit = hit || id == rec.Call.ID
					}
					if rec.Memoized != hit || (hit && len(rec.Attempts) != 0) {
						t.Errorf("call %s: Memoized %v with %d attempts, want memoised %v", rec.Call.ID, rec.Memoized, len(rec.Attempts), hit)
					}
				}
			}
			// A memo hit answers with the new call's id and the memoised content.
			for _, id := range tc.memoHits {
				found := false
				for _, m := range toolMessages(run.Messages) {
					found = found || m == id+"=lookup ok {}" || m == id+`=lookup ok {"a":1,"b":2}` || m == id+`=lookup ok {"a":1}`
				}
				if !found {
					t.Errorf("no tool message answers %s: %q", id, toolMessages(run.Messages))
				}
			}
		})
	}
}

// TestMemoisedTerminationDoesNotEndTheRun: a pure tool's terminating result
// answered from the memo did not run, so it does not count towards "every
// result asked to terminate"; the run goes on to the model.
func TestMemoisedTerminationDoesNotEndTheRun(t *testing.T) {
	stop := &counted{spec: tools.Spec{Name: "stop", Safety: tools.Safety{Pure: true}}, fn: func(context.Context, tools.Call) (*tools.Result, error) {
		return tools.Terminating("stopping"), nil
	}}
	model := script(
		respond(call("c1", "stop", `{}`), call("c2", "echo", `{}`)), // echo does not terminate: the run goes on
		respond(call("c3", "stop", `{}`)),                           // answered from the memo
		final("done"),
	)
	run, err := agent.Run(context.Background(), model, newRegistry(t, stop, echo("echo")), []llm.Message{llm.UserMessage("go")},
		&agent.Options{Clock: virtual(), Memoize: true})
	if err != nil {
		t.Fatal(err)
	}
	if rec := run.Turns[1].Calls[0]; !rec.Memoized || !rec.Result.Terminate {
		t.Fatalf("c3: memoized %v, terminate %v; want a memoised terminating result", rec.Memoized, rec.Result.Terminate)
	}
	if stop.n.Load() != 1 {
		t.Errorf("stop ran %d times, want 1", stop.n.Load())
	}
	if run.Termination.Reason != agent.ReasonFinalText || model.count() != 3 {
		t.Errorf("reason %q after %d model calls, want %q after 3", run.Termination.Reason, model.count(), agent.ReasonFinalText)
	}
}
