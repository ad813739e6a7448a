package gemini

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// forward sends a bridged agent's own Gemini request to the Gemini API,
// with this model's key (x-goog-api-key; the agent's key header and ?key=
// removed) and root (wire.Forward). The model is in the path: a request
// naming another model is sent to this model's path, and fw.Replaced
// says so; a Vertex path is sent as the Gemini API's
// (/v1beta/models/M:method). A request in another format is refused.
func (m *Model) forward(ctx context.Context, fw *wire.Forwarded) (*llm.Response, error) {
	if fw.Call.Format != wire.Gemini {
		err := fmt.Errorf("%w: %s serves the Gemini API (POST .../models/M:generateContent); the agent called POST %s (%s): choose a provider of its format with --model", wire.ErrForward, m.Name(), fw.URL.Path, fw.Call.Format)
		return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: ProviderName, Message: err.Error(), Err: err}
	}
	path := fw.URL.Path
	i := strings.LastIndex(path, "/models/")
	_, method, ok := strings.Cut(path[i+1:], ":")
	if i < 0 || !ok {
		err := fmt.Errorf("%w: %s is not a Gemini model path", wire.ErrForward, path)
		return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: ProviderName, Message: err.Error(), Err: err}
	}
	prefix := path[:i]
	if strings.Contains(prefix, "/projects/") || strings.Contains(prefix, "/publishers/") || prefix == "" {
		prefix = "/" + APIVersion
	}
	if m.model != fw.Call.Model {
		fw.Replaced = fw.Call.Model
	}
	u := *fw.URL
	u.Path, u.RawPath = prefix+"/models/"+m.model+":"+method, ""
	out := *fw
	out.URL = &u
	h := http.Header{}
	for k, vs := range m.opts.Headers {
		h[http.CanonicalHeaderKey(k)] = vs
	}
	h.Set("X-Goog-Api-Key", m.key)
	resp, err := wire.Forward(ctx, &out, wire.Endpoint{Provider: ProviderName, BaseURL: m.base, Header: h, Client: m.http, Query: url.Values{}})
	fw.Replaced = out.Replaced
	return resp, err
}
