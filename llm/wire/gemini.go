package wire

import (
	"net/http"
	"time"

	"github.com/tapeloop/tapeloop/llm"
)

// Gemini is Google's Gemini API (POST .../models/M:generateContent and
// .../models/M:streamGenerateContent?alt=sse, v1 and v1beta), and the same
// calls on Vertex AI (.../projects/P/locations/L/publishers/google/models/M:...).
// The model is named by the path, not the body.
var Gemini Format = gemini{}

type gemini struct{}

func (gemini) String() string   { return "gemini" }
func (gemini) Endpoint() string { return "POST .../models/M:generateContent" }

// Env points Google's Gen AI SDKs (google.golang.org/genai, @google/genai,
// google-genai) at base, for the Gemini API and for Vertex AI: they append
// /v1beta/models/M:... (or Vertex's /v1beta1/projects/...) to it.
func (gemini) Env(base string) []string {
	return []string{"GOOGLE_GEMINI_BASE_URL=" + base, "GOOGLE_VERTEX_BASE_URL=" + base}
}

// Credentials are the API key (x-goog-api-key, or ?key=) and Vertex's
// OAuth bearer token.
func (gemini) Credentials() Credentials {
	return Credentials{Headers: []string{"X-Goog-Api-Key", "Authorization"}, Query: []string{"key"}}
}

// VersionHeaders is empty: the API version is in the path, and pinned
// from there as the parameter apiVersion.
func (gemini) VersionHeaders() []string { return nil }

func (gemini) route(path string) (route, bool) {
	m, v, stream, ok := geminiPath(path)
	return route{model: m, stream: stream, apiVersion: v}, ok
}

func (gemini) decode(body []byte, r route, last *decoded) (*Call, error) {
	return decodeGemini(body, r, last)
}

func (gemini) encode(c *Call, resp *llm.Response, opts *Options) (string, []byte) {
	if c.Stream {
		return ContentStream, geminiStream(c, resp, opts)
	}
	return ContentJSON, geminiBody(c, resp, opts)
}

// status: Google answers a timeout with 504 DEADLINE_EXCEEDED.
func (gemini) status(kind llm.ErrorKind) int {
	if kind == llm.ErrTimeout {
		return http.StatusGatewayTimeout
	}
	return 0
}

func (gemini) errorBody(status int, kind llm.ErrorKind, msg string) []byte {
	return geminiErrorJSON(status, kind, msg, 0)
}

// errorBodyRetry is errorBody with Google's RetryInfo detail saying when
// to retry.
func (gemini) errorBodyRetry(status int, kind llm.ErrorKind, msg string, retryAfter time.Duration) []byte {
	return geminiErrorJSON(status, kind, msg, retryAfter)
}

// errorEvent: a Gemini stream that fails carries the error body as a data
// event.
func (gemini) errorEvent(body []byte) []byte { return dataEvent("", body) }

func (gemini) contextPrefix() string {
	return "The input token count exceeds the maximum number of tokens allowed: "
}
