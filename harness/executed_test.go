package harness

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// executedSeeds are emitted argument texts: unchanged (any key order or
// spacing), coerced, empty, and numbers sameJSON cannot decode.
var executedSeeds = []string{
	`{"path": "a.txt", "n": 3}`, `{"n":3,"path":"a.txt"}`, `{"path": "a.txt", "n": "3"}`,
	`{"path": "<é>", "n": 1.50}`, `{"path": "x", "n": 1e400}`, `{"path": "x", "n": 2E3}`,
	`{"path": "e1 1e400", "n": 12, "more": [true, false, null, -0.5]}`, "", " ", `{"n": 1, "n": 2}`,
}

// checkShowExecuted asserts that the shortcut taken for unchanged arguments
// decides exactly as decoding both texts does.
func checkShowExecuted(t *testing.T, snap *tools.Snapshot, args string) {
	p := snap.Prepare(llm.ToolCall{ID: "c1", Name: "f", Arguments: args})
	if p.Arguments == nil {
		return
	}
	c := testCall{Arguments: args, Executed: string(p.Arguments), Unchanged: p.ArgumentsUnchanged}.call()
	if got, want := c.showExecuted(), !jsonvalue.Same(c.Executed(), c.Arguments()); got != want {
		t.Fatalf("arguments %q executed as %s (unchanged %v): showExecuted %v, decoding both says %v",
			args, c.Executed(), p.ArgumentsUnchanged, got, want)
	}
}

func showExecutedSnapshot(t testing.TB) *tools.Snapshot {
	r := tools.NewRegistry(nil)
	r.MustRegister(tools.Func(tools.Spec{Name: "f", Parameters: json.RawMessage(
		`{"type": "object", "properties": {"n": {"type": "number"}}}`)},
		func(context.Context, tools.Call) (*tools.Result, error) { return nil, nil }))
	return r.Snapshot()
}

func TestShowExecutedAgreesWithSameJSON(t *testing.T) {
	snap := showExecutedSnapshot(t)
	for _, args := range executedSeeds {
		checkShowExecuted(t, snap, args)
	}
	// The cases that matter, spelt out.
	for _, tc := range []struct {
		args string
		show bool
	}{
		{`{"path": "a.txt", "n": 3}`, false},
		{`{"path": "a.txt", "n": "3"}`, true},
		{" ", true},
	} {
		p := snap.Prepare(llm.ToolCall{ID: "c1", Name: "f", Arguments: tc.args})
		c := testCall{Arguments: tc.args, Executed: string(p.Arguments), Unchanged: p.ArgumentsUnchanged}.call()
		if c.showExecuted() != tc.show {
			t.Errorf("arguments %q executed as %s: showExecuted %v, want %v", tc.args, c.Executed(), !tc.show, tc.show)
		}
	}
}

func FuzzShowExecuted(f *testing.F) {
	for _, s := range executedSeeds {
		f.Add(s)
	}
	snap := showExecutedSnapshot(f)
	f.Fuzz(func(t *testing.T, args string) { checkShowExecuted(t, snap, args) })
}
