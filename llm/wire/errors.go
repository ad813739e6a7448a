package wire

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/tapeloop/tapeloop/llm"
)

// Error is a provider failure to send as the vendor's server does: a status,
// an error body of the vendor's shape and, for a rate limit, Retry-After.
// The zero Error is a 500.
type Error struct {
	// Status is the HTTP status; zero means the usual one for Kind in the
	// format (StatusFor).
	Status int
	// Kind is the failure's kind; empty means the kind of Status
	// (llm.KindForStatus), or overloaded when neither is set.
	Kind llm.ErrorKind
	// Message is the explanation in the body; empty means the status text.
	Message string
	// RetryAfter is sent as Retry-After (seconds, with a fraction when not
	// whole) when positive.
	RetryAfter time.Duration
}

// ErrorOf returns the Error that makes a client of either format see err
// again: an *llm.ProviderError's kind, status, message and Retry-After; any
// other error as a 500 with its text.
func ErrorOf(err error) *Error {
	var pe *llm.ProviderError
	if errors.As(err, &pe) {
		msg := pe.Message
		if msg == "" && pe.Err != nil {
			msg = pe.Err.Error()
		}
		return &Error{Status: pe.StatusCode, Kind: pe.Kind, Message: msg, RetryAfter: pe.RetryAfter}
	}
	return &Error{Status: http.StatusInternalServerError, Message: err.Error()}
}

// StatusFor returns the status a server of format f answers a failure of
// kind with: 429 rate limited, 529 (Anthropic) or 503 (the others)
// overloaded, 401 auth, 400 a bad request or a context that is too long,
// 408 timeout, 499 cancelled; 200 for a malformed response (a body cut
// short), 500 for any other. A nil f is a server of no format.
func StatusFor(f Format, kind llm.ErrorKind) int {
	if f != nil {
		if s := f.status(kind); s != 0 {
			return s
		}
	}
	switch kind {
	case llm.ErrRateLimited:
		return http.StatusTooManyRequests
	case llm.ErrOverloaded:
		return http.StatusServiceUnavailable
	case llm.ErrAuth:
		return http.StatusUnauthorized
	case llm.ErrBadRequest, llm.ErrContextTooLong:
		return http.StatusBadRequest
	case llm.ErrTimeout:
		return http.StatusRequestTimeout
	case llm.ErrCancelled:
		return 499
	case llm.ErrMalformed:
		return http.StatusOK
	}
	return http.StatusInternalServerError
}

// StatusCode returns the status e is sent with in format f.
func (e *Error) StatusCode(f Format) int {
	if e.Status != 0 {
		return e.Status
	}
	return StatusFor(f, e.Kind)
}

func (e *Error) kind(f Format) llm.ErrorKind {
	if e.Kind != "" {
		return e.Kind
	}
	if e.Status != 0 {
		return llm.KindForStatus(e.Status, e.Message)
	}
	return llm.ErrOverloaded
}

func (e *Error) message(status int) string {
	if e.Message != "" {
		return e.Message
	}
	if t := http.StatusText(status); t != "" {
		return t
	}
	return "error " + strconv.Itoa(status)
}

// contextMessage makes sure a context-too-long failure says so in words
// clients (and llm.KindForStatus) recognise.
func contextMessage(f Format, kind llm.ErrorKind, msg string) string {
	if kind != llm.ErrContextTooLong || llm.IsContextTooLong(msg) {
		return msg
	}
	if f == nil {
		return OpenAI.contextPrefix() + msg
	}
	return f.contextPrefix() + msg
}

// Header returns the headers of e's answer: the JSON content type and
// Retry-After when set.
func (e *Error) Header() http.Header {
	h := http.Header{"Content-Type": {ContentJSON}}
	if e.RetryAfter > 0 {
		h.Set("Retry-After", retryAfter(e.RetryAfter))
	}
	return h
}

// retryAfter spells d in seconds: whole ones as an integer, others with
// their fraction (which clients parsing a float read back exactly).
func retryAfter(d time.Duration) string {
	s := d.Seconds()
	if s == math.Trunc(s) {
		return strconv.FormatInt(int64(s), 10)
	}
	return strconv.FormatFloat(s, 'f', -1, 64)
}

// Body returns e's error body in format f, as its server sends it: OpenAI's
// {"error":{"message","type","param","code"}}, Anthropic's
// {"type":"error","error":{"type","message"}}, Google's
// {"error":{"code","message","status"}} (with a RetryInfo detail when
// e.RetryAfter is set), and so on. A nil f (a
// request no format claims) gets OpenAI's shape, which most clients print.
func (e *Error) Body(f Format) []byte {
	status := e.StatusCode(f)
	kind := e.kind(f)
	msg := contextMessage(f, kind, e.message(status))
	if f == nil {
		f = OpenAI
	}
	if rb, ok := f.(retryBodies); ok {
		return rb.errorBodyRetry(status, kind, msg, e.RetryAfter)
	}
	return f.errorBody(status, kind, msg)
}

// marshal is json.Marshal of a value that cannot fail to encode.
func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("wire: " + err.Error())
	}
	return b
}

// dataEvent returns a server-sent event carrying data: "event: name" first
// when name is set.
func dataEvent(name string, data []byte) []byte {
	var b []byte
	if name != "" {
		b = append(append(append(b, "event: "...), name...), '\n')
	}
	return append(append(append(b, "data: "...), data...), "\n\n"...)
}

type openAIError struct {
	Error openAIErrorBody `json:"error"`
}

type openAIErrorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

type anthropicError struct {
	Type  string             `json:"type"`
	Error anthropicErrorBody `json:"error"`
}

type anthropicErrorBody struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Write answers w with e in format f. A malformed-response error is a 200
// whose body is cut short, as a dropped connection leaves it.
func (e *Error) Write(w http.ResponseWriter, f Format) {
	status := e.StatusCode(f)
	if status < 400 {
		w.Header().Set("Content-Type", ContentJSON)
		w.WriteHeader(status)
		body := e.Body(f)
		_, _ = w.Write(body[:len(body)/2])
		return
	}
	for k, v := range e.HeaderFor(f) {
		w.Header()[k] = v
	}
	w.WriteHeader(status)
	_, _ = w.Write(e.Body(f))
}

// Event returns the stream event a server of format f sends when it fails
// after a stream began: Anthropic's "event: error" with its error body,
// OpenAI's data line holding {"error":{...}}, and so on.
func (e *Error) Event(f Format) []byte {
	body := e.Body(f)
	if f == nil {
		f = OpenAI
	}
	if t, ok := f.(typedEvents); ok {
		return t.typedErrorEvent(e.StatusCode(f), e.kind(f), body)
	}
	return f.errorEvent(body)
}

// retryBodies is implemented by a format whose error body says when to
// retry (Google's google.rpc.RetryInfo detail), not only a header.
type retryBodies interface {
	errorBodyRetry(status int, kind llm.ErrorKind, msg string, retryAfter time.Duration) []byte
}

// headedErrors is implemented by a format whose error answers name their
// type in a header (Bedrock's X-Amzn-ErrorType).
type headedErrors interface {
	errorHeader(status int, kind llm.ErrorKind) http.Header
}

// typedEvents is implemented by a format whose stream error events name
// the failure's type outside the body (Bedrock's :exception-type).
type typedEvents interface {
	typedErrorEvent(status int, kind llm.ErrorKind, body []byte) []byte
}

// HeaderFor returns the headers of e's answer in format f: Header's, and
// the error type for a format that names it in a header.
func (e *Error) HeaderFor(f Format) http.Header {
	h := e.Header()
	if he, ok := f.(headedErrors); ok {
		for k, v := range he.errorHeader(e.StatusCode(f), e.kind(f)) {
			h[k] = v
		}
	}
	return h
}

func anthropicErrorType(status int, kind llm.ErrorKind) string {
	switch {
	case status == 429 || kind == llm.ErrRateLimited:
		return "rate_limit_error"
	case status == 529 || (kind == llm.ErrOverloaded && status < 500):
		return "overloaded_error"
	case status == 401:
		return "authentication_error"
	case status == 403:
		return "permission_error"
	case status == 404:
		return "not_found_error"
	case status == 413:
		return "request_too_large"
	case status == 408 || kind == llm.ErrTimeout:
		return "timeout_error"
	case status >= 500:
		if kind == llm.ErrOverloaded && status != 500 {
			return "overloaded_error"
		}
		return "api_error"
	}
	return "invalid_request_error"
}

// openAIErrorType returns the type and code of an OpenAI error body.
func openAIErrorType(status int, kind llm.ErrorKind) (string, *string) {
	code := func(s string) *string { return &s }
	switch {
	case status == 429 || kind == llm.ErrRateLimited:
		return "rate_limit_exceeded", nil
	case status == 401:
		return "invalid_authentication", nil
	case status >= 500:
		return "server_error", nil
	case kind == llm.ErrContextTooLong:
		return "invalid_request_error", code("context_length_exceeded")
	}
	return "invalid_request_error", nil
}
