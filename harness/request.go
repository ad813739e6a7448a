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
}

// Generate calls the next model with req carrying the parameters.
func (m *requestModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	r := *req
	r.Params = m.params
	return m.next.Generate(llm.WithRequestOptions(ctx, m.opts), &r)
}
