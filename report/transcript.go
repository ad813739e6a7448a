package report

import (
	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/harness"
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
// (harness.SameArguments, the golden's comparison), so spacing or key order
// alone does not show them.
func (c *Call) ShowExecuted() bool {
	return c.Executed != "" && !harness.SameArguments(c.Executed, c.Arguments)
}

// TranscriptOf returns the transcript of an outcome, or nil for a nil outcome.
// User messages are taken from the run's conversation: those sent before a
// turn's request are attached to that turn.
func TranscriptOf(o *harness.Outcome) *Transcript {
	if o == nil {
		return nil
	}
	t := &Transcript{Final: o.Final, TerminationError: o.Error, Turns: make([]Turn, 0, len(o.Turns))}
	var users [][]string
	if o.Run != nil {
		t.Tokens = o.Run.Usage
		users = userMessagesByTurn(o.Run.Messages)
	}
	for i, ot := range o.Turns {
		turn := Turn{Index: ot.Index, Diff: ot.Diff, ExtractedFrom: ot.Envelope}
		delivered := map[string]bool{}
		for _, a := range ot.Delivered {
			turn.AsyncResults = append(turn.AsyncResults, AsyncResult{ID: a.ID, Name: a.Name, Result: a.Result})
			delivered[agent.AsyncResultMessage(a.ID, a.Name, &tools.Result{Content: a.Result}).Content] = true
		}
		if i < len(users) {
			for _, u := range users[i] {
				if !delivered[u] {
					turn.User = append(turn.User, u)
				}
			}
		}
		if ot.Response != nil {
			turn.Content = ot.Response.Message.Content
			turn.FinishReason = string(ot.Response.FinishReason)
		}
		for _, c := range ot.Calls {
			turn.Calls = append(turn.Calls, Call{
				ID: c.ID, Name: c.Name, Arguments: c.Arguments, Executed: c.Executed,
				Repairs: c.Repairs, Coercions: c.Coercions, Attempts: c.Attempts,
				Memoized: c.Memoized, Async: c.Async, Failure: string(c.Failure),
				Result: c.Result, Effects: c.Effects,
			})
		}
		t.Turns = append(t.Turns, turn)
	}
	return t
}

// userMessagesByTurn splits the conversation at its assistant messages and
// returns, for each assistant message in order, the user messages that came
// before it and after the previous one.
func userMessagesByTurn(msgs []llm.Message) [][]string {
	var out [][]string
	var pending []string
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			pending = append(pending, m.Content)
		case llm.RoleAssistant:
			out = append(out, pending)
			pending = nil
		}
	}
	return out
}
