package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/fixtures"
	"github.com/tapeloop/tapeloop/internal/regularfile"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/tools/toolkit"
	"github.com/tapeloop/tapeloop/workspace"
)

// TestFixturesSeeTheLoopsIteration: a tool unavailable until iteration 2
// refuses the call of the first turn and answers the call of the second:
// fixtures see the loop's iteration advance once per turn.
func TestFixturesSeeTheLoopsIteration(t *testing.T) {
	s, err := scenario.Parse([]byte(`format: tapeloop/v1
setup:
  tools:
    - {name: search, fixture: unavailable, with: {reason: rebuilding, until_iteration: 2, result: found}}
input: [{role: user, content: find it}]
tape:
  - response: {tool_calls: [{id: c1, name: search, arguments: {}}]}
  - response: {tool_calls: [{id: c2, name: search, arguments: {}}]}
  - response: {content: done}
`), "it.yaml", "it")
	if err != nil {
		t.Fatal(err)
	}
	o, err := Run(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Turns) != 3 || len(o.Turns[0].Calls) != 1 || len(o.Turns[1].Calls) != 1 {
		t.Fatalf("turns %+v, want 3 with a call in each of the first two", o.Turns)
	}
	if c := o.Turns[0].Calls[0]; c.Failure != tools.KindUnavailable || !strings.Contains(c.Result, "rebuilding") {
		t.Errorf("turn 1: %s %q, want unavailable: rebuilding", c.Failure, c.Result)
	}
	if c := o.Turns[1].Calls[0]; c.Failure != "" || c.Result != "found" {
		t.Errorf("turn 2: %s %q, want found", c.Failure, c.Result)
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
	if c := o.Turns[0].Calls[0]; c.Executed != "" {
		t.Errorf("a call that never ran: Executed = %q, want empty", c.Executed)
	}
	c := o.Turns[0].Calls[1]
	if c.Executed != "{}" || c.Attempts != 2 || len(c.Retries) != 1 || c.Retries[0].Failure != tools.KindTimeout || c.Retries[0].Backoff != 0 {
		t.Errorf("a retried call: %+v; want one failed attempt (timeout) with no backoff", c)
	}
}

// TestSetUpPerturbsAndTagsStandIns: a non-zero Perturb wraps every tool
// and zero leaves them as built; a recorded fixture's tool, and only it,
// is registered as a stand-in that an MCP server's tool may replace.
func TestSetUpPerturbsAndTagsStandIns(t *testing.T) {
	s, err := scenario.Parse([]byte(`format: tapeloop/v1
setup:
  tools:
    - calculator
    - name: book
      fixture: recorded
      with:
        results:
          - {arguments: {flight: SK1}, content: R1}
input: [{role: user, content: hi}]
tape: []
`), "set.yaml", "set")
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{0, 7} {
		_, reg, err := setUp(s, &toolkit.Env{}, &RunOptions{Perturb: seed})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"calculator", "book"} {
			tool, ok := reg.Lookup(name)
			if _, wrapped := tool.(*perturbed); !ok || wrapped != (seed != 0) {
				t.Errorf("Perturb %d: %s is %T, want it wrapped only for a non-zero Perturb", seed, name, tool)
			}
		}
		if n := reg.RemoveProvider(fixtures.StandInProvider); n != 1 {
			t.Errorf("Perturb %d: %d stand-ins, want 1", seed, n)
		}
		if _, ok := reg.Lookup("book"); ok {
			t.Errorf("Perturb %d: the recorded book is not a stand-in", seed)
		}
		if _, ok := reg.Lookup("calculator"); !ok {
			t.Errorf("Perturb %d: calculator was taken for a stand-in", seed)
		}
	}
}

// TestMCPConnectTimeoutIsNamed: a live run whose MCP server does not
// finish connecting within setup.mcp[].timeout fails saying so, with the
// server's file and line.
func TestMCPConnectTimeoutIsNamed(t *testing.T) {
	s, err := scenario.Parse([]byte(`format: tapeloop/v1
setup:
  mcp:
    - {name: slow, command: [slow-server], timeout: 10ms}
input: [{role: user, content: hi}]
tape: []
`), "mcp.yaml", "mcp")
	if err != nil {
		t.Fatal(err)
	}
	model := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.AssistantMessage("done")}, nil
	})
	connect := func(ctx context.Context, _ *tools.Registry, _ scenario.MCPSetup, _ string) (func(), error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	_, err = Run(context.Background(), s, &RunOptions{Model: model, ConnectMCP: connect})
	want := "mcp.yaml:4: setup.mcp[slow]: the server did not finish connecting (initialize, tools/list) within 10ms (setup.mcp[].timeout): "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Run = %v, want %s...", err, want)
	}
}

// TestSeedTreeLimitIsInclusive: a seed tree of exactly the limit is
// copied; one byte more is refused, naming the file that crossed it.
func TestSeedTreeLimitIsInclusive(t *testing.T) {
	dir := t.TempDir()
	seed := filepath.Join(dir, "seed")
	if err := os.Mkdir(seed, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(seed, "a.txt"), "12345")
	writeFile(t, filepath.Join(seed, "b.txt"), "67890")
	path := filepath.Join(dir, "s.yaml")
	writeFile(t, path, "format: tapeloop/v1\nsetup:\n  workspace:\n    from: seed\ninput: [{role: user, content: hi}]\ntape: []\n")
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ws := workspace.NewMemory()
	if err := copySeedTree(ws, &s.Setup.Workspace, 10); err != nil {
		t.Errorf("a 10-byte tree at a limit of 10: %v", err)
	}
	if got, err := ws.ReadFile("b.txt"); err != nil || string(got) != "67890" {
		t.Errorf("b.txt = %q, %v", got, err)
	}
	err = copySeedTree(workspace.NewMemory(), &s.Setup.Workspace, 9)
	if !errors.Is(err, regularfile.ErrTooLarge) || !strings.HasPrefix(err.Error(), "reading b.txt: ") {
		t.Errorf("a 10-byte tree at a limit of 9: %v, want b.txt too large", err)
	}
}
