package report

import (
	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// Transcript is one run turn by turn: what the user said, what the model
// answered, each call as emitted and as executed, and each turn's workspace
// diff. Replay results carry one per scenario; eval results may carry one per
// trial. A nil *Transcript means the run produced none (it could not start).
type Transcript struct {
	// Turns has one entry per model call that answered, in order.
	Turns []Turn `json:"turns"`
	// Final is the last assistant text; "" when there was none.
	Final string `json:"final,omitempty"`
	// TerminationError is the error text of the termination; "" when none.
	TerminationError string `json:"termination_error,omitempty"`
	// Tokens sums the usage the model reported; zero when it reported none.
	Tokens llm.Usage `json:"tokens"`
}

// Turn is one model call, what led to it and what its calls did.
type Turn struct {
	// Index counts turns from 1.
	Index int `json:"turn"`
	// User holds the user messages sent since the previous turn (the input, for
	// the first turn); nil when there were none.
	User []string `json:"user,omitempty"`
	// AsyncResults are asynchronous completions delivered before this turn.
	AsyncResults []AsyncResult `json:"async_results,omitempty"`
	// Content is the model's text; "" when it wrote none.
	Content string `json:"content,omitempty"`
	// FinishReason is why the model stopped; "" when not reported.
	FinishReason string `json:"finish_reason,omitempty"`
	// ExtractedFrom names the text envelope the calls came from; "" for
	// structured calls.
	ExtractedFrom string `json:"extracted_from,omitempty"`
	Calls         []Call `json:"calls,omitempty"`
	// Diff is the turn's change to the workspace as unified diffs; "" when
	// nothing changed.
	Diff string `json:"diff,omitempty"`
}

// AsyncResult is an asynchronous call's completion.
type AsyncResult struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Result string `json:"result"`
}

// Call is one tool call of a turn.
type Call struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments are as the model emitted them; Executed as executed (canonical
	// JSON), "" when the call never ran.
	Arguments string `json:"arguments"`
	Executed  string `json:"executed,omitempty"`
	// Repairs and Coercions name what was fixed in the arguments; nil when
	// nothing was.
	Repairs   []string         `json:"repairs,omitempty"`
	Coercions []tools.Coercion `json:"coercions,omitempty"`
	// Attempts counts executions; 0 when the call never ran.
	Attempts int  `json:"attempts,omitempty"`
	Memoized bool `json:"memoized,omitempty"`
	Async    bool `json:"async,omitempty"`
	// Failure is the failure kind; "" when the call succeeded.
	Failure string         `json:"failure,omitempty"`
	Result  string         `json:"result"`
	Effects []tools.Effect `json:"effects,omitempty"`
}

// ShowExecuted reports whether a report shows the arguments as executed:
// the call ran and they are a different JSON value from those emitted
// (as the golden compares them), so spacing or key order
// alone does not show them.
func (c *Call) ShowExecuted() bool {
	return c.Executed != "" && !jsonvalue.Same(c.Executed, c.Arguments)
}
