package wire

import (
	"net/http"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// Responses is OpenAI's Responses API (POST .../responses), which openai-go's
// responses package, the openai npm and Python packages' client.responses
// and the agent frameworks built on them speak. A request naming a
// previous_response_id continues a conversation the server kept: a Decoder
// resolves it from the responses it was told of (Decoder.Keep); Decode,
// which keeps none, decodes only the request's own input.
var Responses Format = responsesAPI{}

type responsesAPI struct{}

func (responsesAPI) String() string   { return "responses" }
func (responsesAPI) Endpoint() string { return "POST .../responses" }

// Env points OpenAI's SDKs at base: OPENAI_BASE_URL, which they append
// /responses to (the variable Chat Completions clients read too).
func (responsesAPI) Env(base string) []string { return []string{"OPENAI_BASE_URL=" + base + "/v1"} }

func (responsesAPI) Credentials() Credentials {
	return Credentials{Headers: []string{"Authorization", "Api-Key", "Openai-Organization", "Openai-Project"}}
}

func (responsesAPI) VersionHeaders() []string { return nil }

func (responsesAPI) route(path string) (route, bool) {
	p := strings.TrimRight(path, "/")
	return route{}, strings.HasSuffix(p, "/responses") || p == "responses"
}

func (responsesAPI) decode(body []byte, _ route, last *decoded) (*Call, error) {
	return decodeResponses(body, last)
}

func (responsesAPI) encode(c *Call, resp *llm.Response, opts *Options) (string, []byte) {
	if c.Stream {
		return ContentStream, responsesStream(c, resp, opts)
	}
	return ContentJSON, responsesBody(c, resp, opts)
}

func (responsesAPI) status(kind llm.ErrorKind) int {
	if kind == llm.ErrOverloaded {
		return http.StatusServiceUnavailable
	}
	return 0
}

// errorBody is the body of Chat Completions: the Responses API answers a
// failed request with the same {"error":{message,type,param,code}}.
func (responsesAPI) errorBody(status int, kind llm.ErrorKind, msg string) []byte {
	return OpenAI.errorBody(status, kind, msg)
}

// errorEvent is the "error" event a Responses stream fails with, holding
// the error body's error object, followed by response.failed.
func (responsesAPI) errorEvent(body []byte) []byte { return responsesErrorEvents(body, -1) }

func (responsesAPI) contextPrefix() string {
	return "Your input exceeds the context window of this model: "
}
