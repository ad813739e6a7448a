package wire

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// Format is one of the two wire formats.
type Format int

// The wire formats. The zero Format is OpenAI's.
const (
	// OpenAI is the Chat Completions API (POST .../chat/completions).
	OpenAI Format = iota
	// Anthropic is the Messages API (POST .../messages).
	Anthropic
)

// String returns "openai" or "anthropic".
func (f Format) String() string {
	if f == Anthropic {
		return "anthropic"
	}
	return "openai"
}

// ErrRequest is wrapped by every error about a request that cannot be
// decoded: a body that is not JSON, a wrong type, an unknown role.
var ErrRequest = errors.New("invalid request")

// ErrPath is wrapped by the error of Decode for a path that names neither
// format.
var ErrPath = errors.New("unknown API path")

// FormatOf tells the format from a request path: one ending in
// /chat/completions is OpenAI's, one ending in /messages Anthropic's
// (trailing slashes ignored); false for any other path.
func FormatOf(path string) (Format, bool) {
	p := strings.TrimRight(path, "/")
	switch {
	case strings.HasSuffix(p, "/chat/completions") || p == "chat/completions":
		return OpenAI, true
	case strings.HasSuffix(p, "/messages") || p == "messages":
		return Anthropic, true
	}
	return OpenAI, false
}

// Call is a decoded model request: the conversation and tools as an
// llm.Request, and what the client asked of the answer's encoding.
type Call struct {
	// Format is the wire format the request came in.
	Format Format
	// Model is the model the client named; empty when it named none.
	Model string
	// Stream is set when the client asked for a server-sent event stream.
	Stream bool
	// IncludeUsage is set when an OpenAI client asked for the usage chunk
	// at the end of a stream (stream_options.include_usage).
	IncludeUsage bool
	// Request is the conversation: system prompts first as system messages,
	// every message with its tool calls and results, the tools offered with
	// description and parameter schema (compacted JSON), and the schema of
	// a structured answer.
	Request llm.Request
}

// Decode decodes a request body in the format path names (FormatOf). The
// error wraps ErrPath for another path and ErrRequest for a body that is not
// a valid request.
func Decode(path string, body []byte) (*Call, error) {
	f, ok := FormatOf(path)
	if !ok {
		return nil, fmt.Errorf("%w %q: want .../chat/completions (OpenAI) or .../messages (Anthropic)", ErrPath, path)
	}
	if f == Anthropic {
		return DecodeAnthropic(body)
	}
	return DecodeOpenAI(body)
}

func requestErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrRequest}, args...)...)
}
