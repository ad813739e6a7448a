package harness

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/fixtures"
	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/tools/toolkit"
	"github.com/tapeloop/tapeloop/workspace"
)

const recorderScenario = `format: tapeloop/v1
name: own-loop
setup:
  workspace: {files: {notes.txt: "hello\n"}}
  tools: [write_file, read_file, deposit]
input: [{role: user, content: "Add a line, then deposit 5 into acme."}]
tape:
  - response:
      tool_calls:
        - {id: call_1, name: write_file, arguments: {path: notes.txt, content: "hello\nworld\n"}}
        - {id: call_2, name: deposit, arguments: {account: acme, amount: 5}}
  - response: {content: done}
`

// TestRecorderMatchesScenarioRun drives agent.Run by hand, as a team with
// its own loop would, and checks that a Recorder turns it into the same
// golden (per-turn diff and state included) as Run gives for the
// equivalent scenario.
func TestRecorderMatchesScenarioRun(t *testing.T) {
	s, err := scenario.Parse([]byte(recorderScenario), "own-loop.yaml", "own-loop")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Run(context.Background(), s, &RunOptions{Tools: []*toolkit.Factory{depositFactory}})
	if err != nil {
		t.Fatal(err)
	}
	wantGolden, _ := want.Golden(redact.Default())

	// The same run, by hand.
	ws := workspace.NewMemory()
	if err := ws.WriteFile("notes.txt", []byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	clk := clock.NewVirtual(clock.Epoch)
	env := &toolkit.Env{Workspace: ws, Seed: 1, Clock: clk}
	reg := tools.NewRegistry(nil)
	for _, name := range []string{"write_file", "read_file"} {
		f, _ := fixtures.Lookup(name)
		tool, err := f.New(name, env, nil)
		if err != nil {
			t.Fatal(err)
		}
		reg.MustRegister(tool)
	}
	deposit, err := depositFactory.New("deposit", env, nil)
	if err != nil {
		t.Fatal(err)
	}
	reg.MustRegister(deposit)
	rec, err := NewRecorder(ws, &RecorderOptions{Name: "own-loop", Env: env})
	if err != nil {
		t.Fatal(err)
	}
	model := replay.NewModel(&tape.Tape{Entries: s.Tape}, nil)
	run, runErr := agent.Run(context.Background(), model, reg, s.Input, &agent.Options{Clock: clk, Observer: rec.Observer(nil)})
	o, err := rec.Outcome(run, runErr)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := o.Golden(redact.Default())
	if string(got) != string(wantGolden) {
		t.Errorf("the Recorder's golden differs from Run's (- Run, + Recorder):\n%s", udiff.FirstHunk(string(wantGolden), string(got)))
	}
	if o.Turns[0].Diff == "" || o.State == nil {
		t.Errorf("no diff or no state: %+v", o)
	}

	// outcomeOf sees the same run without the diffs.
	plain, err := outcomeOf("own-loop", run, runErr, ws, env)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Turns[0].Diff != "" || plain.Final != "done" || jsonvalue.Canonical(plain.State) != jsonvalue.Canonical(o.State) || len(plain.Workspace) != 1 {
		t.Errorf("outcomeOf: %+v", plain)
	}
}

// TestRecorderTakesTheCallersBase: given Base, a Recorder diffs the first
// turn against it, not against what the workspace holds (which it does
// not read for a baseline); without Base it reads the workspace.
func TestRecorderTakesTheCallersBase(t *testing.T) {
	for _, c := range []struct {
		base map[string]workspace.Entry
		want string
	}{
		{map[string]workspace.Entry{"notes.txt": {Data: []byte("before\n")}}, "-before\n+after\n"},
		{nil, "-now\n+after\n"},
	} {
		ws := workspace.NewMemory()
		if err := ws.WriteFile("notes.txt", []byte("now\n")); err != nil {
			t.Fatal(err)
		}
		rec, err := NewRecorder(ws, &RecorderOptions{Base: c.base})
		if err != nil {
			t.Fatal(err)
		}
		if err := ws.WriteFile("notes.txt", []byte("after\n")); err != nil {
			t.Fatal(err)
		}
		observe := rec.Observer(nil)
		observe(agent.Event{Kind: agent.EventToolEnd, Result: &tools.Result{Effects: []tools.Effect{{File: &tools.FileEffect{Op: tools.OpModify, Path: "notes.txt"}}}}})
		observe(agent.Event{Kind: agent.EventTurnEnd})
		if len(rec.turnDiffs) != 1 || !strings.Contains(rec.turnDiffs[0], c.want) {
			t.Errorf("Base %v: turn diffs %q, want one holding %q", c.base, rec.turnDiffs, c.want)
		}
	}
}

// TestRecorderReportsABadEffectPath: a tool effect on a path outside the
// workspace makes the Recorder's outcome an error, not a silently empty
// diff.
func TestRecorderReportsABadEffectPath(t *testing.T) {
	rec, err := NewRecorder(workspace.NewMemory(), nil)
	if err != nil {
		t.Fatal(err)
	}
	observe := rec.Observer(nil)
	observe(agent.Event{Kind: agent.EventToolEnd, Result: &tools.Result{Content: "ok", Effects: []tools.Effect{{File: &tools.FileEffect{Op: "write", Path: "../outside.txt", Bytes: 1}}}}})
	observe(agent.Event{Kind: agent.EventTurnEnd, Turn: 1})
	o, err := rec.Outcome(&agent.RunResult{}, nil)
	if err == nil || o != nil || !strings.HasPrefix(err.Error(), "recording the workspace diff: ") {
		t.Errorf("Outcome = %v, %v; want the effect's error", o, err)
	}
}

// TestRecorderOutcomeOfAHandDrivenRun: a Recorder whose observer saw no
// event still gives a run's outcome: no turns is nil, a turn with no
// calls has nil calls, a call that never ran shows no executed
// arguments, and a retried call's failed attempts are listed with no
// backoff.
func TestRecorderOutcomeOfAHandDrivenRun(t *testing.T) {
	rec, err := NewRecorder(workspace.NewMemory(), nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := rec.Outcome(&agent.RunResult{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Turns != nil {
		t.Errorf("a run with no turns: Turns = %#v, want nil", o.Turns)
	}
	neverRan := &agent.CallRecord{Call: llm.ToolCall{ID: "c1", Name: "search", Arguments: `{"q": "x"}`}, Arguments: []byte(`{"q":"x"}`)}
	retried := &agent.CallRecord{Call: llm.ToolCall{ID: "c2", Name: "fetch", Arguments: `{}`}, Arguments: []byte(`{}`),
		Attempts: []agent.Attempt{{Result: tools.Fail(tools.KindTimeout, "timed out")}, {Result: tools.Success("page")}}, Result: tools.Success("page")}
	run := &agent.RunResult{Turns: []*agent.Turn{
		{Index: 1, Response: &llm.Response{Message: llm.AssistantMessage("")}, Calls: []*agent.CallRecord{neverRan, retried}},
		{Index: 2, Response: &llm.Response{Message: llm.AssistantMessage("done")}},
	}}
	o, err = rec.Outcome(run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Turns) != 2 || len(o.Turns[0].Calls) != 2 || o.Turns[1].Calls != nil {
		t.Fatalf("turns %+v; want 2, the second with nil calls", o.Turns)
	}
	if c := o.Turns[0].Calls[0]; c.Executed() != "" {
		t.Errorf("a call that never ran: Executed = %q, want empty", c.Executed())
	}
	c := o.Turns[0].Calls[1]
	if c.Executed() != "{}" || c.Attempts() != 2 || len(c.Retries()) != 1 || c.Retries()[0].Failure != tools.KindTimeout || c.Retries()[0].Backoff != 0 {
		t.Errorf("a retried call: %+v; want one failed attempt (timeout) with no backoff", c)
	}
	// The outcome holds nothing of a call twice: each call is the run's
	// record of it.
	if o.Turns[0].Calls[0].Record != neverRan || c.Record != retried {
		t.Errorf("the outcome's calls are not the run's records")
	}
}

// TestAsyncResultsDeliveredBeforeTheNextCall: an asynchronous call's
// completion is the outcome's delivered result of the model call it came
// before, and the golden lists it there under async_results.
func TestAsyncResultsDeliveredBeforeTheNextCall(t *testing.T) {
	o := runInline(t, `format: tapeloop/v1
setup:
  tools:
    - {name: build, fixture: async, with: {result: built, delay: 1s}}
input: [{role: user, content: "Build it."}]
tape:
  - response: {tool_calls: [{id: call_1, name: build, arguments: {}}]}
  - response: {content: "It is built."}
`)
	if len(o.Turns) != 2 || len(o.Turns[0].Delivered) != 0 {
		t.Fatalf("turns %+v; want two, nothing delivered before the first", o.Turns)
	}
	if got, want := o.Turns[1].Delivered, []AsyncOutcome{{ID: "call_1", Name: "build", Result: "built"}}; !slices.Equal(got, want) {
		t.Errorf("delivered before turn 2: %+v; want %+v", got, want)
	}
	golden, err := o.writeGolden()
	if err != nil {
		t.Fatal(err)
	}
	if want := "  - turn: 2\n    async_results:\n      - id: call_1\n        name: build\n        result: built\n"; !strings.Contains(string(golden), want) {
		t.Errorf("the golden lacks\n%s\nin\n%s", want, golden)
	}
}
