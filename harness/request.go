package harness

import (
	"context"
	"encoding/json"

	"github.com/tapeloop/tapeloop/llm"
)

// requestModel is the model of a run whose scenario sets
// setup.loop.request: every call carries the options (a live model sends
// them, llm.WithRequestOptions) and their parameters (Request.Params), so
// that a recording pins what the loop sends and a replay compares it, as a
// bridged agent's parameters are.
type requestModel struct {
	next   llm.Model
	opts   llm.RequestOptions
	params map[string]json.RawMessage
	// answeredBy is the model answering in place of the scenario's own
	// (RunOptions.ModelName), which params still pin; "" when it is the
	// scenario's, or the scenario names none.
	answeredBy string
}

// Generate calls the next model with req carrying the parameters.
func (m *requestModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	r := *req
	r.Params = m.params
	ctx = llm.WithAnsweredBy(llm.WithRequestOptions(ctx, m.opts), m.answeredBy)
	return m.next.Generate(ctx, &r)
}
