package anthropic

import (
	"context"
	"fmt"
	"net/http"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// forward sends a bridged agent's own Messages request to the server,
// with this model's key (and OpenOptions.Headers) and root, the model
// field replaced by this model's when it names another (wire.Forward). A
// request in another format is refused: the Messages API is this
// provider's only one.
func (m *Model) forward(ctx context.Context, fw *wire.Forwarded) (*llm.Response, error) {
	if fw.Call.Format != wire.Anthropic {
		err := fmt.Errorf("%w: %s serves Messages (POST .../messages); the agent called POST %s (%s): choose a provider of its format with --model", wire.ErrForward, m.Name(), fw.URL.Path, fw.Call.Format)
		return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: ProviderName, Message: err.Error(), Err: err}
	}
	h := http.Header{}
	for k, vs := range m.opts.Headers {
		h[http.CanonicalHeaderKey(k)] = vs
	}
	h.Set("X-Api-Key", m.key)
	return wire.Forward(ctx, fw, wire.Endpoint{Provider: ProviderName, BaseURL: m.base, Header: h, Model: m.model, Client: m.http})
}
