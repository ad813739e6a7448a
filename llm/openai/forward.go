package openai

import (
	"context"
	"fmt"
	"net/http"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// forward sends a bridged agent's own Chat Completions or Responses API
// request to the server, with this model's key (and OpenOptions.Headers)
// and root, the model field replaced by this model's when it names
// another (wire.Forward). A request in another format is refused: an
// OpenAI server speaks those two (a compatible server that lacks the
// Responses API answers with its own error).
func (m *Model) forward(ctx context.Context, fw *wire.Forwarded) (*llm.Response, error) {
	if fw.Call.Format != wire.OpenAI && fw.Call.Format != wire.Responses {
		err := fmt.Errorf("%w: %s serves Chat Completions and the Responses API (POST .../chat/completions, .../responses); the agent called POST %s (%s): choose a provider of its format with --model", wire.ErrForward, m.Name(), fw.URL.Path, fw.Call.Format)
		return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: m.dialect.Name, Message: err.Error(), Err: err}
	}
	h := http.Header{}
	for k, vs := range m.opts.Headers {
		h[http.CanonicalHeaderKey(k)] = vs
	}
	if m.key != "" {
		h.Set("Authorization", "Bearer "+m.key)
	}
	return wire.Forward(ctx, fw, wire.Endpoint{Provider: m.dialect.Name, BaseURL: m.base, Header: h, Model: m.model, Client: m.http})
}
