package agent

import (
	"context"
	"encoding/json"
	"time"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// DefaultMaxIterations is the iteration limit when Options.MaxIterations is zero.
const DefaultMaxIterations = 20

// Options configures a run. A nil *Options is the zero value; every field says
// what its zero value means.
type Options struct {
	// MaxIterations bounds the model calls of a run; zero means 20. Reaching it
	// ends the run with ErrMaxIterations.
	MaxIterations int
	// Execution is how a batch of calls runs; zero means parallel. A batch also
	// runs sequentially when any of its tools is sequential.
	Execution tools.ExecutionMode
	// Retry retries transient failures of idempotent tools; nil means no retry.
	Retry *RetryPolicy
	// ModelRetry retries failed model calls (rate limits, overload, timeouts,
	// malformed responses); nil means a failed model call ends the run.
	ModelRetry *ModelRetryPolicy
	// ModelTimeout bounds each model call attempt (a context deadline, so
	// wall-clock time: it matters only for live models); a call that runs
	// past it fails with the provider's timeout error, which ModelRetry may
	// retry. Zero means no bound beyond ctx.
	ModelTimeout time.Duration
	// Clock is where time comes from; nil means the wall clock. Use a
	// *clock.Virtual for runs whose timing must not depend on the machine.
	Clock clock.Clock
	// Hooks run around every call; zero means none.
	Hooks Hooks
	// Observer receives every event, in order, on the loop's goroutine; nil
	// means none.
	Observer Observer
	// Repairer overrides the registry's repairer for tool arguments and repairs a
	// structured final answer; nil means the registry's (and no repair of a
	// structured answer).
	Repairer tools.Repairer
	// TextCalls extracts calls a model wrote as text, used only when a response
	// has no structured calls; nil means none are extracted.
	TextCalls TextCallExtractor
	// Memoize answers an identical call to a pure tool from a per-run memo;
	// false means every call executes.
	Memoize bool
	// ToolTimeout bounds one attempt of a tool whose spec sets no Timeout; zero
	// means no bound.
	ToolTimeout time.Duration
	// RunInfo reaches tools and hooks through their context (tools.RunInfoFrom).
	RunInfo tools.RunInfo
	// NextUser, when set, is asked for the user's next message each time the
	// model answers with a final text: a message it returns with true is
	// appended to the conversation and the loop goes on, as an application
	// does per user message; false ends the run with final_text. Nil ends
	// the run at the first final text. State is per conversation, not per
	// user turn: generated call IDs keep counting, the memo keeps its
	// entries, asynchronous calls still pending are delivered in a later
	// turn, and MaxIterations bounds the model calls of the whole
	// conversation.
	NextUser func(ctx context.Context) (llm.Message, bool)
	// AwaitAsync makes the loop wait, before each model call, until every
	// asynchronous call has completed, so that the next request does not
	// depend on timing; false delivers only what has completed.
	AwaitAsync bool
}

// RetryPolicy says how often and how patiently a transient failure is retried.
type RetryPolicy struct {
	// Attempts counts every try, the first included; values below 2 mean no retry.
	Attempts int
	// Backoff is the wait before the first retry; each later wait doubles it.
	// Zero means retry at once.
	Backoff time.Duration
	// MaxBackoff caps a wait; zero means no cap.
	MaxBackoff time.Duration
}

// backoff returns the wait before retry number n (1-based).
func (p *RetryPolicy) backoff(n int) time.Duration {
	d := p.Backoff
	for i := 1; i < n && d > 0; i++ {
		d *= 2
		if p.MaxBackoff > 0 && d >= p.MaxBackoff {
			break
		}
	}
	if p.MaxBackoff > 0 && d > p.MaxBackoff {
		d = p.MaxBackoff
	}
	return d
}

func (p *RetryPolicy) attempts() int {
	if p == nil || p.Attempts < 1 {
		return 1
	}
	return p.Attempts
}

// Hooks run around tool calls. Before hooks run in the order the model emitted
// the calls, before any of the batch executes; after hooks run in the same order
// once the whole batch is done. A panicking hook ends the run with
// ErrHookPanic.
type Hooks struct {
	// Before may block a call by returning an error (the call gets a blocked
	// result carrying the error's text) or rewrite its arguments by setting
	// call.Arguments (they are validated again). Nil means none.
	Before func(ctx context.Context, call *HookCall) error
	// After may replace a call's result by returning another; returning res
	// keeps it. Nil means none.
	After func(ctx context.Context, call HookCall, res *tools.Result) *tools.Result
}

// HookCall is what a hook sees of a call: its validated arguments.
type HookCall struct {
	ID        string
	Name      string
	Arguments json.RawMessage
	Spec      tools.Spec
}

// TextCallExtractor finds tool calls that a model wrote in its text.
// llm/textcalls.Extractor implements it. Returned calls need no IDs: the loop
// assigns them from a per-run sequence. An error means the text cannot be
// taken as calls (llm/textcalls refuses more than MaxCallsPerResponse calls in
// one message); it ends the run with model_error.
type TextCallExtractor interface {
	ExtractCalls(content string, tools []llm.ToolDefinition) (calls []llm.ToolCall, remaining, envelope string, err error)
}

// Observer receives the events of a run.
type Observer func(Event)
