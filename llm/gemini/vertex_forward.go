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

// forwardVertex sends a bridged agent's own Gemini request to Vertex AI
// with an access token of this model's credentials (Authorization:
// Bearer; the agent's key header, its Authorization and ?key= removed),
// at the host of the request's location (wire.Forward). The path keeps
// the agent's API version, project and location
// (/v1beta1/projects/P/locations/L/publishers/google/models/M:method);
// a path without them (Vertex AI's express mode, /v1beta1/publishers/...,
// or the Gemini API's /v1beta/models/M:method, whose v1beta and v1alpha
// become v1beta1) gets this model's project and location. The model is in
// the path: a request naming another model is sent to this model's path,
// and fw.Replaced says so. A request in another format is refused.
func (m *Model) forwardVertex(ctx context.Context, fw *wire.Forwarded) (*llm.Response, error) {
	fail := func(err error) (*llm.Response, error) {
		return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: m.provider, Message: err.Error(), Err: err}
	}
	if fw.Call.Format != wire.Gemini {
		return fail(fmt.Errorf("%w: %s serves Vertex AI's Gemini API (POST .../publishers/google/models/M:generateContent); the agent called POST %s (%s): choose a provider of its format with --model", wire.ErrForward, m.Name(), fw.URL.Path, fw.Call.Format))
	}
	p, err := vertexPath(fw.URL.Path)
	if err != nil {
		return fail(fmt.Errorf("%w: %w", wire.ErrForward, err))
	}
	if p.project == "" {
		p.project, p.location = m.vertex.project, m.vertex.location
		if p.project == "" {
			return fail(fmt.Errorf("%w: the agent called POST %s, which names no project, and none is set: set %s", wire.ErrForward, fw.URL.Path, ProjectEnv))
		}
	}
	base, err := m.vertex.host(p.location)
	if err != nil {
		return fail(fmt.Errorf("%w: the location of POST %s: %w", wire.ErrForward, fw.URL.Path, err))
	}
	if m.model != fw.Call.Model {
		fw.Replaced = fw.Call.Model
	}
	u := *fw.URL
	u.Path = "/" + p.version + "/projects/" + p.project + "/locations/" + p.location + "/publishers/" + p.publisher + "/models/" + m.model + ":" + p.method
	u.RawPath = ""
	out := *fw
	out.URL = &u
	tok, err := m.vertex.token()
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	for k, vs := range m.opts.Headers {
		h[http.CanonicalHeaderKey(k)] = vs
	}
	h.Set("Authorization", tok.Type()+" "+tok.AccessToken)
	if m.vertex.quota != "" {
		h.Set("X-Goog-User-Project", m.vertex.quota)
	}
	resp, err := wire.Forward(ctx, &out, wire.Endpoint{Provider: m.provider, BaseURL: base, Header: h, Client: m.http, Query: url.Values{}})
	fw.Replaced = out.Replaced
	return resp, err
}

// vertexRequest is a Gemini request path read for Vertex AI.
type vertexRequest struct {
	// version is the API version to call (v1, v1beta1).
	version string
	// project and location are the path's; empty when it names none.
	project, location string
	// publisher is the path's, google when it names none.
	publisher string
	// method is generateContent or streamGenerateContent.
	method string
}

// vertexPath reads path, a Gemini request's (the bridge routed it:
// wire.Gemini), for Vertex AI: /VERSION[/projects/P/locations/L][/publishers/X]/models/M:method.
// The Gemini API's versions map to Vertex AI's: v1 stays, v1beta and
// v1alpha become v1beta1; a path naming none gets VertexAPIVersion.
func vertexPath(path string) (vertexRequest, error) {
	r := vertexRequest{version: VertexAPIVersion, publisher: "google"}
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return r, fmt.Errorf("%s is not a Gemini model path", path)
	}
	_, method, ok := strings.Cut(path[i+len("/models/"):], ":")
	if !ok || method == "" {
		return r, fmt.Errorf("%s names no method", path)
	}
	r.method = method
	segs := strings.Split(strings.Trim(path[:i], "/"), "/")
	if len(segs) > 0 && strings.HasPrefix(segs[0], "v") && len(segs[0]) > 1 && segs[0][1] >= '0' && segs[0][1] <= '9' {
		switch v := segs[0]; {
		case strings.Contains(v, "alpha") || v == "v1beta":
			r.version = "v1beta1"
		default:
			r.version = v
		}
		segs = segs[1:]
	}
	for len(segs) >= 2 {
		switch segs[0] {
		case "projects":
			r.project = segs[1]
		case "locations":
			r.location = segs[1]
		case "publishers":
			r.publisher = segs[1]
		default:
			return r, fmt.Errorf("%s: unexpected %q before models/", path, segs[0])
		}
		segs = segs[2:]
	}
	if len(segs) == 1 && segs[0] != "" {
		return r, fmt.Errorf("%s: unexpected %q before models/", path, segs[0])
	}
	if (r.project == "") != (r.location == "") {
		return r, fmt.Errorf("%s names a project without a location, or a location without a project", path)
	}
	return r, nil
}
