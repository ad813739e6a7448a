package wire

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// Format is one wire format: how one vendor API spells a model call over
// HTTP. Each is a value listed in Formats, and everything a format does is
// a method of it: which requests it claims (by method and path), how a
// request decodes into what replay compares (an llm.Request), how an
// answer, a stream and an error are encoded, which request headers and
// query parameters carry its credentials, which headers select its API
// version, and which environment variables its official SDKs read the base
// URL from. The methods that read or write bodies are unexported: the
// formats are this package's, and adding one is adding a value to Formats
// (docs/design.md, "Adding a wire format").
//
// No format is a default: a request no format claims is refused, naming
// the method and path it came with and the formats served (ErrPath).
type Format interface {
	// String returns the format's short name, as files and messages spell
	// it: "openai" (Chat Completions), "anthropic" (Messages).
	String() string
	// Endpoint returns the method and path pattern the format is served
	// at, as messages show it: "POST .../chat/completions".
	Endpoint() string
	// Env returns the environment variables that point the format's
	// official SDKs at base (a bridge's root URL, without a trailing
	// slash), as NAME=VALUE, with the path suffix each SDK expects.
	Env(base string) []string
	// Credentials returns the request headers and query parameters that
	// carry the format's credentials: redacted in what is kept, never
	// compared, replaced when a request is forwarded.
	Credentials() Credentials
	// VersionHeaders returns the (lower-case) request headers that select
	// the API version or beta features: pinned beside the body's
	// parameters.
	VersionHeaders() []string

	// route reads a POST request's path: ok when the format claims it, and
	// what the path says of the call (the model, streaming).
	route(path string) (r route, ok bool)
	// decode decodes a request body the format claimed, with the route its
	// path gave, reusing what last holds of the previous request of the
	// format (see Decoder; nil decodes it whole), and on success makes last
	// this request's. The error wraps ErrRequest.
	decode(body []byte, r route, last *decoded) (*Call, error)
	// encode encodes resp as the answer to c: a JSON body, or a stream
	// when c.Stream.
	encode(c *Call, resp *llm.Response, opts *Options) (contentType string, body []byte)
	// status returns the status the format's server answers a failure of
	// kind with, when it differs from the common one (StatusFor); zero
	// otherwise.
	status(kind llm.ErrorKind) int
	// errorBody returns the format's error body for a failure of kind with
	// status and msg (msg already says "context too long" as the format's
	// clients recognise it, see contextPrefix).
	errorBody(status int, kind llm.ErrorKind, msg string) []byte
	// errorEvent returns the stream event that carries body, the format's
	// error body, when a stream fails after it began.
	errorEvent(body []byte) []byte
	// contextPrefix is what an error message about a context that is too
	// long starts with in the format.
	contextPrefix() string
}

// Credentials names where a format's requests carry credentials.
type Credentials struct {
	// Headers are request header names (canonical form).
	Headers []string
	// Query are URL query parameter names.
	Query []string
}

// Formats lists every wire format, in the order requests are matched
// against them. The round-trip tests iterate it.
var Formats = []Format{OpenAI, Anthropic, Responses, Gemini, Bedrock}

// route is what a request's path says of the call.
type route struct {
	// model is the model the path names; empty when the body names it.
	model string
	// stream is set when the path asks for a stream.
	stream bool
	// apiVersion is the API version the path names (Gemini's v1 or
	// v1beta); empty when the path names none or a header does.
	apiVersion string
}

// ErrRequest is wrapped by every error about a request that cannot be
// decoded: a body that is not JSON, a wrong type, an unknown role.
var ErrRequest = errors.New("invalid request")

// ErrPath is wrapped by the error of Decode for a path that no format
// claims; its message names the path and the formats served.
var ErrPath = errors.New("unknown API path")

// FormatOf returns the format that claims a POST request to path (trailing
// slashes ignored); false for a path no format claims.
func FormatOf(path string) (Format, bool) {
	f, _, ok := formatOf(path)
	return f, ok
}

func formatOf(path string) (Format, route, bool) {
	for _, f := range Formats {
		if r, ok := f.route(path); ok {
			return f, r, true
		}
	}
	return nil, route{}, false
}

// Served lists the endpoints of Formats, for a message: "POST
// .../chat/completions (openai), POST .../messages (anthropic)".
func Served() string {
	var b strings.Builder
	for i, f := range Formats {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s)", f.Endpoint(), f)
	}
	return b.String()
}

// PathError returns the error for a request no format claims: it wraps
// ErrPath and names method, path and the formats served.
func PathError(method, path string) error {
	return fmt.Errorf("%w: no wire format serves %s %s; served: %s", ErrPath, method, path, Served())
}

// Call is a decoded model request: the conversation and tools as an
// llm.Request, and what the client asked of the answer's encoding.
type Call struct {
	// Format is the wire format the request came in.
	Format Format
	// Model is the model the client named (in the body, or in the path for
	// the formats that put it there); empty when it named none.
	Model string
	// Stream is set when the client asked for a stream.
	Stream bool
	// IncludeUsage is set when an OpenAI client asked for the usage chunk
	// at the end of a stream (stream_options.include_usage).
	IncludeUsage bool
	// PreviousResponseID is the previous_response_id a Responses request
	// continues: a Decoder puts the conversation of that response (one it
	// was told of with Keep) before the request's input; empty for a
	// request that continues none, and in every other format.
	PreviousResponseID string
	// Request is the conversation: system prompts first as system messages,
	// every message with its tool calls and results, the tools offered with
	// description and parameter schema (compacted JSON), the schema of a
	// structured answer, and the behaviour-changing parameters.
	Request llm.Request

	// instructions counts the messages at the start of Request.Messages
	// that are the request's own system prompt (a Responses request's
	// instructions), not carried on by a response that continues it.
	instructions int
	// digest is the SHA-256 of the request body, for the id of its
	// response (see Decoder.Keep); zero in the formats that keep none.
	digest [sha256.Size]byte
	// answerID is the id a vendor's server gave its answer to the call,
	// when a forwarded request's answer was read back (DecodeAnswer): Keep
	// hands it out, so that the agent's next request, forwarded as sent,
	// names a response the vendor knows. Empty otherwise.
	answerID string
}

// Decode decodes a request body POSTed to path, in the format that claims
// path (FormatOf). The error wraps ErrPath for a path no format claims and
// ErrRequest for a body that is not a valid request.
func Decode(path string, body []byte) (*Call, error) {
	f, r, ok := formatOf(path)
	if !ok {
		return nil, PathError(http.MethodPost, path)
	}
	return f.decode(body, r, nil)
}

func requestErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrRequest}, args...)...)
}
