package agent

import (
	"errors"
	"fmt"

	"github.com/tapeloop/tapeloop/llm"
)

// tooManyCalls ends the run when a response holds more than
// llm.MaxCallsPerResponse tool calls: n structured calls (envelope "") or n
// calls written as text in that envelope, or when the TextCallExtractor
// refused the text (err; llm/textcalls refuses more than that many). None
// of the calls run; the run ends with model_error and an error matching
// ErrModel (and llm.ErrTooManyCalls for too many calls). It returns nil when
// the turn goes on.
func (r *runner) tooManyCalls(n int, envelope string, err error) *Termination {
	var problem error
	switch {
	case err != nil && errors.Is(err, llm.ErrTooManyCalls):
		problem = err
	case err != nil:
		problem = fmt.Errorf("tool calls written as text: %w", err)
	case n <= llm.MaxCallsPerResponse:
		return nil
	case envelope != "":
		problem = fmt.Errorf("%w: the text holds %d calls (%s), more than the %d one response may hold", llm.ErrTooManyCalls, n, envelope, llm.MaxCallsPerResponse)
	default:
		problem = fmt.Errorf("%w: the response holds %d calls, more than the %d one response may hold", llm.ErrTooManyCalls, n, llm.MaxCallsPerResponse)
	}
	return &Termination{Reason: ReasonModelError, Err: fmt.Errorf("%w: turn %d: %w", ErrModel, r.result.ModelCalls, problem)}
}
