package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
	"github.com/tapeloop/tapeloop/replay"
)

// maxBody bounds a request body the handler reads.
const maxBody = 64 << 20

// The base URLs a Run hands out: no client ever dials them, the Run's
// HTTPClient answers in process (and .invalid never resolves, so a client
// that ignores the HTTPClient fails instead of reaching a network).
const (
	// OpenAIBaseURL is the root OpenAI clients take (they append
	// /chat/completions).
	OpenAIBaseURL = "http://tapeloop-bridge.invalid/v1"
	// AnthropicBaseURL is the root Anthropic clients take (they append
	// /v1/messages).
	AnthropicBaseURL = "http://tapeloop-bridge.invalid"
	// APIKey is the key a Run hands out; nothing checks it.
	APIKey = "sk-tapeloop-bridge"
)

// Handler returns an http.Handler that answers model calls in both wire
// formats from model: a request to .../chat/completions (OpenAI) or
// .../messages (Anthropic) is decoded into an llm.Request and answered with
// model's response, or its error as the vendor's typed error (a divergence
// from the tape as a 400 the client does not retry). opts configures the
// encoding; nil means wire's defaults. Serve it on a loopback listener for
// an agent in another process, or use Client in process.
func Handler(model llm.Model, opts *wire.Options) http.Handler {
	return &handler{model: model, opts: opts}
}

type handler struct {
	model llm.Model
	opts  *wire.Options
	dec   wire.Decoder // requests extend the previous one: it decodes only what they add
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, _ := wire.FormatOf(r.URL.Path)
	if r.Method != http.MethodPost {
		(&wire.Error{Status: http.StatusMethodNotAllowed, Message: "the bridge answers POST model calls only"}).Write(w, f)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err == nil && len(body) > maxBody {
		err = fmt.Errorf("the request body is larger than %d bytes", maxBody)
	}
	if err != nil {
		(&wire.Error{Status: http.StatusBadRequest, Message: "bridge: reading the request: " + err.Error()}).Write(w, f)
		return
	}
	call, err := h.dec.Decode(r.URL.Path, body)
	switch {
	case errors.Is(err, wire.ErrPath):
		(&wire.Error{Status: http.StatusNotFound, Message: "bridge: " + err.Error()}).Write(w, f)
		return
	case err != nil:
		(&wire.Error{Status: http.StatusBadRequest, Message: "bridge: " + err.Error()}).Write(w, f)
		return
	}
	resp, err := h.model.Generate(r.Context(), &call.Request)
	if err != nil {
		errorOf(err).Write(w, call.Format)
		return
	}
	wire.WriteResponse(w, call, resp, h.opts)
}

// errorOf is the wire error a failed model call is answered with: a
// divergence or an exhausted tape as a 400 the client does not retry, a
// recorded provider error as itself.
func errorOf(err error) *wire.Error {
	switch {
	case errors.Is(err, replay.ErrDiverged), errors.Is(err, replay.ErrTapeExhausted):
		return &wire.Error{Status: http.StatusBadRequest, Kind: llm.ErrBadRequest, Message: "tapeloop bridge: " + err.Error()}
	case errors.Is(err, context.Canceled):
		return &wire.Error{Kind: llm.ErrCancelled, Message: err.Error()}
	}
	return wire.ErrorOf(err)
}

// Client returns an *http.Client whose transport serves h in process: no
// socket, no network. Whatever host a request names, h answers it.
func Client(h http.Handler) *http.Client {
	return &http.Client{Transport: transport{h}}
}

type transport struct{ h http.Handler }

// RoundTrip serves the request with the handler into a recorder.
func (t transport) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	if r.Body != nil {
		r.Body.Close()
	}
	resp := rec.Result()
	// The SDKs read the request back from a response (Anthropic's stream
	// errors, say).
	resp.Request = r
	return resp, nil
}
