package wire

import (
	"net/http"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// OpenAI is the Chat Completions API (POST .../chat/completions), which
// OpenAI and most OpenAI-compatible servers speak.
var OpenAI Format = chatCompletions{}

// Anthropic is Anthropic's Messages API (POST .../messages).
var Anthropic Format = messages{}

type chatCompletions struct{}

func (chatCompletions) String() string   { return "openai" }
func (chatCompletions) Endpoint() string { return "POST .../chat/completions" }

// Env points OpenAI's SDKs (openai-go, the openai npm and Python packages)
// at base: OPENAI_BASE_URL, which they append /chat/completions to.
func (chatCompletions) Env(base string) []string { return []string{"OPENAI_BASE_URL=" + base + "/v1"} }

func (chatCompletions) Credentials() Credentials {
	return Credentials{Headers: []string{"Authorization", "Api-Key", "Openai-Organization", "Openai-Project"}}
}

func (chatCompletions) VersionHeaders() []string { return nil }

func (chatCompletions) route(path string) (route, bool) {
	p := strings.TrimRight(path, "/")
	return route{}, strings.HasSuffix(p, "/chat/completions") || p == "chat/completions"
}

func (chatCompletions) decode(body []byte, _ route, last *decoded) (*Call, error) {
	return decodeOpenAI(body, last)
}

func (chatCompletions) encode(c *Call, resp *llm.Response, opts *Options) (string, []byte) {
	if c.Stream {
		return ContentStream, openAIStream(c, resp, opts)
	}
	return ContentJSON, openAIBody(c, resp, opts)
}

func (chatCompletions) status(kind llm.ErrorKind) int {
	if kind == llm.ErrOverloaded {
		return http.StatusServiceUnavailable
	}
	return 0
}

func (chatCompletions) errorBody(status int, kind llm.ErrorKind, msg string) []byte {
	typ, code := openAIErrorType(status, kind)
	return marshal(openAIError{Error: openAIErrorBody{Message: msg, Type: typ, Code: code}})
}

func (chatCompletions) errorEvent(body []byte) []byte { return dataEvent("", body) }

func (chatCompletions) contextPrefix() string {
	return "This model's maximum context length was exceeded: "
}

type messages struct{}

func (messages) String() string   { return "anthropic" }
func (messages) Endpoint() string { return "POST .../messages" }

// Env points Anthropic's SDKs at base: ANTHROPIC_BASE_URL, which they
// append /v1/messages to.
func (messages) Env(base string) []string { return []string{"ANTHROPIC_BASE_URL=" + base} }

func (messages) Credentials() Credentials {
	return Credentials{Headers: []string{"X-Api-Key", "Authorization"}}
}

// VersionHeaders are the headers of a Messages request that select the API
// version or beta features.
func (messages) VersionHeaders() []string { return []string{"anthropic-version", "anthropic-beta"} }

func (messages) route(path string) (route, bool) {
	p := strings.TrimRight(path, "/")
	return route{}, strings.HasSuffix(p, "/messages") || p == "messages"
}

func (messages) decode(body []byte, _ route, last *decoded) (*Call, error) {
	return decodeAnthropic(body, last)
}

func (messages) encode(c *Call, resp *llm.Response, opts *Options) (string, []byte) {
	if c.Stream {
		return ContentStream, anthropicStream(c, resp, opts)
	}
	return ContentJSON, anthropicBody(c, resp, opts)
}

func (messages) status(kind llm.ErrorKind) int {
	if kind == llm.ErrOverloaded {
		return 529
	}
	return 0
}

func (messages) errorBody(status int, kind llm.ErrorKind, msg string) []byte {
	return marshal(anthropicError{Type: "error", Error: anthropicErrorBody{Type: anthropicErrorType(status, kind), Message: msg}})
}

func (messages) errorEvent(body []byte) []byte { return dataEvent("error", body) }

func (messages) contextPrefix() string { return "prompt is too long: " }
