package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// Forwarded is a model request as an agent sent it to the bridge, which a
// live model forwards to its vendor instead of encoding the decoded
// request its own way (issue 37: a recording is what production sends).
// The bridge puts it on the context of the model call (WithForwarded); a
// provider that can forward reads it (ForwardedOf) and calls Forward.
type Forwarded struct {
	// Call is the request decoded: its format, model and stream flag.
	Call *Call
	// URL is the URL the agent called: its path and query.
	URL *url.URL
	// Header holds the request's headers as sent, credentials included
	// (Forward removes those).
	Header http.Header
	// Body is the request body as sent. It is only valid until the model
	// call returns.
	Body []byte
	// Replaced and Sent are set by Forward when it sent the vendor
	// Endpoint.Model (Sent) instead of the model the body named
	// (Replaced); both empty when the model was the agent's.
	Replaced, Sent string
}

type forwardedKey struct{}

// WithForwarded returns ctx carrying fw: the model call it is the context
// of forwards fw when its model can.
func WithForwarded(ctx context.Context, fw *Forwarded) context.Context {
	return context.WithValue(ctx, forwardedKey{}, fw)
}

// ForwardedOf returns the request ctx carries (WithForwarded); nil when
// the call is not a bridged agent's (tapeloop's own loop).
func ForwardedOf(ctx context.Context) *Forwarded {
	fw, _ := ctx.Value(forwardedKey{}).(*Forwarded)
	return fw
}

// Endpoint is where a live model's vendor takes requests in one wire
// format, and the credentials it wants.
type Endpoint struct {
	// Provider names the provider, for errors ("openai").
	Provider string
	// BaseURL is the API's root as the format's SDKs take it (the value of
	// the variable Format.Env sets): "https://api.openai.com/v1",
	// "https://api.anthropic.com".
	BaseURL string
	// Header holds the credentials (and any headers the provider adds to
	// every request); they replace the agent's.
	Header http.Header
	// Query holds credentials sent as query parameters; nil means none.
	Query url.Values
	// Model, when set and not the model the agent named, replaces the
	// body's model (eval --model comparing models on one agent); empty
	// keeps the agent's.
	Model string
	// Client sends the request; nil means http.DefaultClient.
	Client *http.Client
}

// ErrForward is wrapped by the errors of a request that cannot be
// forwarded at all: a format the provider's vendor does not speak, or one
// that cannot read answers.
var ErrForward = errors.New("cannot forward the request")

// maxAnswer bounds the vendor answer Forward reads.
const maxAnswer = 64 << 20

// hopHeaders are the headers of one connection, never forwarded, and the
// ones the transport sets itself (Accept-Encoding: the client decompresses
// what it asked for).
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Host", "Content-Length", "Accept-Encoding"}

// Forward sends fw, the agent's own request, to ep: its body byte for byte
// (the model replaced when ep.Model says another) and its headers
// (those selecting the API version or beta features among them), with
// the format's credentials removed and ep's put in, at ep's host; and
// reads the vendor's answer back (DecodeAnswer). The path keeps its part
// after the root the format's SDKs append to (Format.Env): /v1/messages
// goes to BaseURL+"/v1/messages", /v1/chat/completions to
// BaseURL+"/chat/completions". Failures are *llm.ProviderError; a format
// that cannot read answers wraps ErrForward before anything is sent.
func Forward(ctx context.Context, fw *Forwarded, ep Endpoint) (*llm.Response, error) {
	f := fw.Call.Format
	if !ReadsAnswers(f) {
		return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: ep.Provider, Message: fmt.Sprintf("the %s format cannot be forwarded yet", f), Err: ErrForward}
	}
	body := fw.Body
	if ep.Model != "" && ep.Model != fw.Call.Model {
		b, err := replaceModel(body, ep.Model)
		if err != nil {
			return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: ep.Provider, Message: "replacing the model: " + err.Error(), Err: err}
		}
		body, fw.Replaced, fw.Sent = b, fw.Call.Model, ep.Model
	}
	u, err := forwardURL(f, ep.BaseURL, fw.URL.Path, fw.URL.Query(), ep.Query)
	if err != nil {
		return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: ep.Provider, Message: err.Error(), Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: ep.Provider, Message: err.Error(), Err: err}
	}
	req.Header = forwardHeader(f, fw.Header, ep.Header)
	client := ep.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if pe := llm.ContextError(ctx, ep.Provider, err); pe != nil {
			return nil, pe
		}
		return nil, &llm.ProviderError{Kind: llm.ErrUnreachable, Provider: ep.Provider, Message: fmt.Sprintf("POST %s: %v", redactURL(u), err), Err: err}
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		if pe := llm.ContextError(ctx, ep.Provider, err); pe != nil {
			return nil, pe
		}
		return nil, &llm.ProviderError{Kind: llm.ErrMalformed, Provider: ep.Provider, StatusCode: resp.StatusCode, Message: "reading the answer: " + err.Error(), Err: err}
	}
	if len(answer) > maxAnswer {
		return nil, &llm.ProviderError{Kind: llm.ErrMalformed, Provider: ep.Provider, StatusCode: resp.StatusCode, Message: fmt.Sprintf("the answer is larger than %d bytes", maxAnswer)}
	}
	out, err := DecodeAnswer(fw.Call, resp.StatusCode, resp.Header, answer)
	var pe *llm.ProviderError
	if errors.As(err, &pe) && ep.Provider != "" {
		pe.Provider = ep.Provider
	}
	return out, err
}

// forwardURL joins base and the agent's path, less the root the format's
// SDKs append to base (Env's suffix: "/v1" for Chat Completions), with the
// agent's query less the format's credential parameters, and creds.
func forwardURL(f Format, base, path string, query, creds url.Values) (string, error) {
	b, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || b.Scheme == "" || b.Host == "" {
		return "", fmt.Errorf("%w: the base URL %q is not an absolute URL", ErrForward, base)
	}
	if env := f.Env(""); len(env) > 0 {
		_, suffix, _ := strings.Cut(env[0], "=")
		if rest, ok := strings.CutPrefix(path, suffix); ok && suffix != "" && (rest == "" || rest[0] == '/') {
			path = rest
		}
	}
	b.Path += path
	q := url.Values{}
	for k, vs := range query {
		q[k] = append([]string(nil), vs...)
	}
	for _, k := range f.Credentials().Query {
		q.Del(k)
	}
	for k, vs := range creds {
		q[k] = append([]string(nil), vs...)
	}
	b.RawQuery = q.Encode()
	return b.String(), nil
}

// redactURL returns u without its query (which may hold a key).
func redactURL(u string) string {
	s, _, _ := strings.Cut(u, "?")
	return s
}

// forwardHeader returns the agent's headers to send the vendor: the
// connection's own and the format's credentials removed, creds added.
func forwardHeader(f Format, agent, creds http.Header) http.Header {
	h := agent.Clone()
	if h == nil {
		h = http.Header{}
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
	for _, k := range f.Credentials().Headers {
		h.Del(k)
	}
	for k, vs := range creds {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	return h
}

// replaceModel returns body with the value of its top-level "model" key
// (every one, should it repeat) replaced by model as a JSON string; every
// other byte kept. A body without one is an error.
func replaceModel(body []byte, model string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("the body is not a JSON object")
	}
	type span struct{ start, end int }
	var spans []span
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if t == "model" {
			end := int(dec.InputOffset())
			spans = append(spans, span{end - len(v), end})
		}
	}
	if len(spans) == 0 {
		return nil, errors.New(`the body names no "model"`)
	}
	quoted := []byte(strconv.Quote(model))
	if q, err := json.Marshal(model); err == nil {
		quoted = q
	}
	out := make([]byte, 0, len(body)+len(quoted))
	prev := 0
	for _, s := range spans {
		out = append(append(out, body[prev:s.start]...), quoted...)
		prev = s.end
	}
	return append(out, body[prev:]...), nil
}
