package agent

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// Reason says why a run ended.
type Reason string

// The termination reasons. Their names are part of the scenario file format.
const (
	// ReasonFinalText: the model answered without calling a tool.
	ReasonFinalText Reason = "final_text"
	// ReasonLoopBreaking: a loop-breaking tool ran; the run ended after its batch.
	ReasonLoopBreaking Reason = "loop_breaking"
	// ReasonAllTerminate: every result of a non-empty batch asked to terminate.
	ReasonAllTerminate Reason = "all_terminate"
	// ReasonMaxIterations: the iteration limit was reached (an error).
	ReasonMaxIterations Reason = "max_iterations"
	// ReasonModelError: the model (or provider) failed.
	ReasonModelError Reason = "model_error"
	// ReasonCancelled: the context was cancelled.
	ReasonCancelled Reason = "cancelled"
	// ReasonHookError: a hook panicked.
	ReasonHookError Reason = "hook_error"
	// ReasonAgentError: an agent that is not this loop, run through package
	// bridge, returned an error without its last model call failing. This
	// loop never ends with it.
	ReasonAgentError Reason = "agent_error"
)

// Reasons lists every termination reason.
var Reasons = []Reason{ReasonFinalText, ReasonLoopBreaking, ReasonAllTerminate, ReasonMaxIterations, ReasonModelError, ReasonCancelled, ReasonHookError, ReasonStructuredAnswer, ReasonAgentError}

// Errors a run can end with; Run returns them wrapped, alongside the run.
var (
	ErrMaxIterations = errors.New("iteration limit reached")
	ErrModel         = errors.New("model call failed")
	ErrHookPanic     = errors.New("hook panicked")
)

// Termination is how a run ended. Err is nil for final_text, loop_breaking and
// all_terminate.
type Termination struct {
	Reason Reason
	Err    error `json:"-"`
	// Error is Err's text, for serialisation; empty when Err is nil.
	Error string `json:",omitempty"`
}

// RunResult is everything a run did.
type RunResult struct {
	// Messages is the whole conversation: the input, then every assistant, tool
	// and asynchronous-result message, in order.
	Messages []llm.Message
	// Turns has one entry per model call that answered.
	Turns       []*Turn
	Termination Termination
	// Usage sums the usage of every model call.
	Usage llm.Usage
	// ModelCalls counts the model calls made, failed ones included; a call
	// retried under Options.ModelRetry counts once.
	ModelCalls int
	// ModelRetries counts the attempts of model calls that failed and were
	// retried.
	ModelRetries int
}

// FinalText returns the content of the last assistant message, or "".
func (r *RunResult) FinalText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == llm.RoleAssistant {
			return r.Messages[i].Content
		}
	}
	return ""
}

// Turn is one model call and the batch of calls it asked for.
type Turn struct {
	// Index counts turns from 1.
	Index int
	// Request summarises what was sent.
	Request RequestSummary
	// Response is the model's answer as received.
	Response *llm.Response
	// Extraction is set when the calls were found in the text.
	Extraction *Extraction
	// Calls are the turn's calls in the order the model emitted them.
	Calls []*CallRecord
}

// RequestSummary is what a turn's request offered.
type RequestSummary struct {
	// Tools are the names of the tools offered, in the order offered (the
	// registry offers them sorted by name).
	Tools []string
	// Messages counts the messages sent.
	Messages int
}

// Extraction records calls found in a response's text.
type Extraction struct {
	Envelope string
	// Content is the text with the envelopes removed.
	Content string
}

// CallRecord is everything that happened to one call.
type CallRecord struct {
	// Call is the call as the model emitted it (with a generated ID when the
	// model gave none).
	Call llm.ToolCall
	// Arguments is canonical JSON of the arguments as executed; nil when they
	// never parsed.
	Arguments json.RawMessage
	Repairs   []string
	Coercions []tools.Coercion
	// Attempts lists every execution; empty when the call failed before
	// execution, was blocked or was answered from the memo.
	Attempts []Attempt
	// Result is the final result, as the model read it.
	Result *tools.Result
	// Memoized is set when the result came from the memo.
	Memoized bool
	// Async is set when the call only started; its completion arrives later.
	Async bool
	// ArgumentsUnchanged is set when Arguments is the canonical form of the
	// call's own argument text, nothing rewritten, repaired or coerced (see
	// tools.Execution); false says nothing either way.
	// The three flags sit together: a record is 8 bytes smaller so.
	ArgumentsUnchanged bool
	// Duration is the time from the call's start to its end on the run's clock.
	Duration time.Duration
	// Updates are the progress messages received while the call ran.
	Updates []string
}

// Attempt is one execution of a call.
type Attempt struct {
	Result   *tools.Result
	Duration time.Duration
}

// Retries returns the number of attempts after the first.
func (c *CallRecord) Retries() int {
	if len(c.Attempts) < 2 {
		return 0
	}
	return len(c.Attempts) - 1
}
