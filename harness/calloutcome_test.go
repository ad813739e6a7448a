package harness

import (
	"encoding/json"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// testCall describes a call as its golden shows it, for tests that build
// outcomes by hand; call turns it into the CallOutcome of a record that
// shows so.
type testCall struct {
	ID, Name, Arguments, Executed string
	// Unchanged says Executed is the canonical form of Arguments
	// (agent.CallRecord.ArgumentsUnchanged).
	Unchanged       bool
	Repairs         []string
	Coercions       []tools.Coercion
	Retries         []RetryOutcome
	Memoized, Async bool
	Failure         tools.FailureKind
	Result          string
	Effects         []tools.Effect
}

// result is a tools.Result with content, failing with kind unless it is
// empty.
func testResult(content string, kind tools.FailureKind) *tools.Result {
	r := &tools.Result{Content: content}
	if kind != "" {
		r.Failure = &tools.Failure{Kind: kind}
	}
	return r
}

// call is c's CallOutcome: a record attempted once per retry and once more
// when it has retries or Executed (the last attempt's result the final
// one), with its backoffs.
func (c testCall) call() CallOutcome {
	rec := &agent.CallRecord{
		Call:               llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments},
		ArgumentsUnchanged: c.Unchanged,
		Repairs:            c.Repairs, Coercions: c.Coercions, Memoized: c.Memoized, Async: c.Async,
		Result: testResult(c.Result, c.Failure),
	}
	rec.Result.Effects = c.Effects
	if c.Executed != "" {
		rec.Arguments = json.RawMessage(c.Executed)
	}
	var backoffs []time.Duration
	if c.Executed != "" || len(c.Retries) > 0 {
		for _, r := range c.Retries {
			rec.Attempts = append(rec.Attempts, agent.Attempt{Result: testResult(r.Result, r.Failure)})
			backoffs = append(backoffs, r.Backoff)
		}
		rec.Attempts = append(rec.Attempts, agent.Attempt{Result: rec.Result})
	}
	return CallOutcome{Record: rec, Backoffs: backoffs}
}

// testCalls is the CallOutcome of each of cs.
func testCalls(cs ...testCall) []CallOutcome {
	out := make([]CallOutcome, len(cs))
	for i, c := range cs {
		out[i] = c.call()
	}
	return out
}
