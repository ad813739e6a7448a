package wire

import (
	"cmp"
	"net/http"
	"unicode/utf8"

	"github.com/tapeloop/tapeloop/llm"
)

// Options configures how a response is encoded. A nil *Options is the zero
// value.
type Options struct {
	// Chunk is the most bytes of text, reasoning or tool-call arguments one
	// stream event carries (cut at character boundaries); zero means
	// DefaultChunk.
	Chunk int
	// ID is the response's id; empty means "chatcmpl-tapeloop" (OpenAI),
	// "msg_tapeloop" (Anthropic) or "resp_tapeloop" (Responses, whose
	// servers give each response an id of its own: see Decoder.Keep).
	ID string
	// Model is the model named in the response; empty means the one the
	// request named.
	Model string
}

// DefaultChunk is the size of a stream's text and argument fragments when
// Options.Chunk is zero: small enough that a client accumulates a tool
// call from several fragments, as it must from a real server.
const DefaultChunk = 32

func (o *Options) chunk() int {
	if o == nil || o.Chunk <= 0 {
		return DefaultChunk
	}
	return o.Chunk
}

func (o *Options) id(def string) string {
	if o == nil {
		return def
	}
	return cmp.Or(o.ID, def)
}

func (o *Options) model(c *Call) string {
	if o != nil && o.Model != "" {
		return o.Model
	}
	return c.Model
}

// pieces cuts s into pieces of at most n bytes at character boundaries (a
// character longer than n is one piece); none for an empty s.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		end := min(n, len(s))
		for end < len(s) && end > 0 && !utf8.RuneStart(s[end]) {
			end--
		}
		if end == 0 {
			_, end = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// Content types of the answers.
const (
	ContentJSON   = "application/json"
	ContentStream = "text/event-stream; charset=utf-8"
	// ContentEventStream is the binary AWS event stream (Bedrock's
	// ConverseStream).
	ContentEventStream = "application/vnd.amazon.eventstream"
)

// EncodeResponse encodes resp as the answer to c in c's format: a JSON body,
// or an event stream when c.Stream. It returns the content type and the
// body.
func EncodeResponse(c *Call, resp *llm.Response, opts *Options) (contentType string, body []byte) {
	return c.Format.encode(c, resp, opts)
}

// WriteResponse writes EncodeResponse's answer to w with status 200.
func WriteResponse(w http.ResponseWriter, c *Call, resp *llm.Response, opts *Options) {
	ct, body := EncodeResponse(c, resp, opts)
	w.Header().Set("Content-Type", ct)
	if ct != ContentJSON {
		w.Header().Set("Cache-Control", "no-cache")
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
