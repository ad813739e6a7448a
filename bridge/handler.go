package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

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
	// /chat/completions, or /responses for the Responses API).
	OpenAIBaseURL = "http://tapeloop-bridge.invalid/v1"
	// AnthropicBaseURL is the root Anthropic clients take (they append
	// /v1/messages).
	AnthropicBaseURL = "http://tapeloop-bridge.invalid"
	// GeminiBaseURL is the root Google's Gen AI clients take, for the
	// Gemini API and Vertex AI alike (they append
	// /v1beta/models/M:generateContent, or Vertex's
	// /v1beta1/projects/P/locations/L/publishers/google/models/M:...).
	GeminiBaseURL = "http://tapeloop-bridge.invalid"
	// BedrockBaseURL is the endpoint Bedrock Runtime clients take (they
	// append /model/M/converse).
	BedrockBaseURL = "http://tapeloop-bridge.invalid"
	// APIKey is the key a Run hands out; nothing checks it.
	APIKey = "sk-tapeloop-bridge"
)

// Handler returns an http.Handler that answers model calls in every wire
// format (wire.Formats) from model: a request to .../chat/completions
// (OpenAI), .../messages (Anthropic), .../responses (OpenAI's Responses
// API, whose previous_response_id may name any response the handler
// served) and so on is decoded into an
// llm.Request and answered with model's response, or its error as the
// vendor's typed error (a divergence from the tape as a 400 the client does
// not retry). A request no format claims, or one that does not decode, is
// refused; when model is the bridge's own (a Run's), the refusal also
// fails the scenario with its reason. opts configures the
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
	f, known := wire.FormatOf(r.URL.Path)
	if !known {
		h.refuse(w, nil, http.StatusNotFound, "bridge: "+wire.PathError(r.Method, r.URL.Path).Error())
		return
	}
	if r.Method != http.MethodPost {
		h.refuse(w, f, http.StatusMethodNotAllowed, fmt.Sprintf("bridge: %s %s: the bridge answers POST model calls only", r.Method, r.URL.Path))
		return
	}
	buf := bodies.Get().(*bytes.Buffer)
	defer putBody(buf)
	body, err := readBody(r, buf)
	if err == nil && len(body) > maxBody {
		err = fmt.Errorf("the request body is larger than %d bytes", maxBody)
	}
	if err != nil {
		h.refuse(w, f, http.StatusBadRequest, "bridge: reading the request: "+err.Error())
		return
	}
	h.answer(w, r, body)
}

// refusal is implemented by a model (the bridge's traffic) that fails the
// scenario when the bridge refuses a request, so that the reason reaches
// the test's own output and not only an HTTP body the agent's SDK may not
// print.
type refusal interface{ refuse(reason error) }

// refuse answers w with status and msg as an error of format f (nil: a
// request no format claims), and hands the reason to the model.
func (h *handler) refuse(w http.ResponseWriter, f wire.Format, status int, msg string) {
	if m, ok := h.model.(refusal); ok {
		m.refuse(errors.New(msg))
	}
	(&wire.Error{Status: status, Kind: llm.ErrBadRequest, Message: msg}).Write(w, f)
}

// answer answers r, whose body is body, in the format its path names.
// Nothing keeps body, or a slice of it, once answer returns (the decoder
// and the request it makes hold copies), so that its buffer serves the
// next request.
func (h *handler) answer(w http.ResponseWriter, r *http.Request, body []byte) {
	call, err := h.dec.Decode(r.URL.Path, body)
	if err != nil {
		f, _ := wire.FormatOf(r.URL.Path)
		h.refuse(w, f, http.StatusBadRequest, "bridge: "+err.Error())
		return
	}
	pinHeaders(call, r.Header)
	// A live model forwards the agent's own request (wire.Forward); the
	// replay reads only the decoded one.
	fw := &wire.Forwarded{Call: call, URL: r.URL, Header: r.Header, Body: body}
	resp, err := h.model.Generate(wire.WithForwarded(r.Context(), fw), &call.Request)
	if errors.Is(err, wire.ErrForward) {
		// The live model cannot take the agent's format: the run fails
		// with the reason, not only the agent's view of a 400.
		h.refuse(w, call.Format, http.StatusBadRequest, "bridge: "+err.Error())
		return
	}
	if err != nil {
		errorOf(err).Write(w, call.Format)
		return
	}
	opts := h.opts
	if id := h.dec.Keep(call, resp); id != "" {
		// A Responses answer gets an id of its own, which a later request
		// of the run may continue (previous_response_id).
		o := wire.Options{}
		if opts != nil {
			o = *opts
		}
		o.ID, opts = id, &o
	}
	wire.WriteResponse(w, call, resp, opts)
}

// bodies holds the buffers request bodies are read into, each needed only
// until its request is answered.
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooled is the largest buffer put back into bodies: a rare huge body
// does not keep its memory for the requests after it.
const maxPooled = 1 << 20

// putBody puts buf back into bodies, unless it grew past maxPooled.
func putBody(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooled {
		buf.Reset()
		bodies.Put(buf)
	}
}

// readBody reads at most maxBody+1 bytes of r's body into buf, growing it
// once to the declared length when there is one, and returns them.
func readBody(r *http.Request, buf *bytes.Buffer) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	if n := r.ContentLength; n > 0 && n <= maxBody {
		buf.Grow(int(n) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(io.LimitReader(r.Body, maxBody+1))
	return buf.Bytes(), err
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

// RoundTrip serves the request with the handler into a response held in
// memory: the status, headers and body it wrote.
func (t transport) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	w := &memWriter{header: http.Header{}}
	t.h.ServeHTTP(w, r)
	if r.Body != nil {
		r.Body.Close()
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return &http.Response{
		Status: strconv.Itoa(w.status) + " " + http.StatusText(w.status), StatusCode: w.status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: w.header, Body: io.NopCloser(bytes.NewReader(w.body.Bytes())), ContentLength: int64(w.body.Len()),
		// The SDKs read the request back from a response (Anthropic's
		// stream errors, say).
		Request: r,
	}, nil
}

// memWriter is an http.ResponseWriter that keeps what the handler wrote.
type memWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

// Header returns the headers to send.
func (w *memWriter) Header() http.Header { return w.header }

// WriteHeader keeps the first status written.
func (w *memWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

// Write keeps p, after a 200 status when none was written.
func (w *memWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

// pinHeaders adds the headers of a request that select its format's API
// version or beta features (wire.Format.VersionHeaders) to its parameters
// (llm.Request.Params), by their lower-case names.
func pinHeaders(call *wire.Call, h http.Header) {
	for _, name := range call.Format.VersionHeaders() {
		v := strings.Join(h.Values(name), ",")
		if v == "" {
			continue
		}
		if call.Request.Params == nil {
			call.Request.Params = map[string]json.RawMessage{}
		}
		b, _ := json.Marshal(v)
		call.Request.Params[name] = b
	}
}
