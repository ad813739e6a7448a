package llm

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrorKind classifies a provider failure so that the loop, the retry policy
// and reports can tell failures apart. An ErrorKind is itself an error, so
// errors.Is(err, llm.ErrRateLimited) reports whether err is a *ProviderError of
// that kind.
type ErrorKind string

// The kinds of provider failure.
const (
	// ErrRateLimited: HTTP 429; ProviderError.RetryAfter holds the server's
	// Retry-After when it sent one.
	ErrRateLimited ErrorKind = "rate_limited"
	// ErrOverloaded: the server is overloaded or failed (HTTP 5xx, 529, or an
	// error event in the middle of a stream).
	ErrOverloaded ErrorKind = "overloaded"
	// ErrAuth: the key is missing, wrong or not allowed (HTTP 401, 403).
	ErrAuth ErrorKind = "auth"
	// ErrBadRequest: the server rejected the request (HTTP 400, 404, 422, ...).
	ErrBadRequest ErrorKind = "bad_request"
	// ErrContextTooLong: a bad request because the conversation does not fit the
	// model's context window. errors.Is(err, ErrBadRequest) holds for it too.
	ErrContextTooLong ErrorKind = "context_too_long"
	// ErrTimeout: the call's deadline passed (HTTP 408 or a context or client
	// timeout).
	ErrTimeout ErrorKind = "timeout"
	// ErrCancelled: the call's context was cancelled.
	ErrCancelled ErrorKind = "cancelled"
	// ErrMalformed: the server answered with something that is not a valid
	// response: undecodable JSON, or a stream that ended without its
	// terminator.
	ErrMalformed ErrorKind = "malformed_response"
	// ErrUnreachable: the server could not be reached at all: the connection
	// was refused, the host name did not resolve, or the TLS handshake
	// failed. ProviderError.Message names the URL. It is retried at most
	// once (MaxRetries): a blip passes, a server that is down or a wrong
	// base URL does not.
	ErrUnreachable ErrorKind = "unreachable"
)

// Error returns the kind's name.
func (k ErrorKind) Error() string { return string(k) }

// Retryable reports whether a failure of this kind may succeed when the same
// call is made again: rate limits, overload, timeouts, malformed (usually
// cut-off) responses, and (once) an unreachable server.
func (k ErrorKind) Retryable() bool {
	switch k {
	case ErrRateLimited, ErrOverloaded, ErrTimeout, ErrMalformed, ErrUnreachable:
		return true
	}
	return false
}

// MaxRetries is the most retries a failure of this kind deserves, whatever a
// retry policy allows: 1 for ErrUnreachable, 0 for a kind that is not
// retryable, and -1 (no cap of its own) for the other retryable kinds.
func (k ErrorKind) MaxRetries() int {
	switch {
	case k == ErrUnreachable:
		return 1
	case k.Retryable():
		return -1
	}
	return 0
}

// MaxRetries is ErrorKind.MaxRetries of err's kind when err is a
// *ProviderError, and 0 otherwise (nil included).
func MaxRetries(err error) int {
	var pe *ProviderError
	if errors.As(err, &pe) {
		return pe.Kind.MaxRetries()
	}
	return 0
}

// ProviderError is a failed model call. Providers return it (possibly wrapped)
// for every failure; use errors.As to read it, or errors.Is with an ErrorKind.
type ProviderError struct {
	// Kind classifies the failure; it is never empty.
	Kind ErrorKind
	// Provider names the provider ("openai", "anthropic", ...); empty when
	// unknown.
	Provider string
	// StatusCode is the HTTP status; zero when the failure had none (transport,
	// stream or context failures).
	StatusCode int
	// RetryAfter is how long the server asked to wait before retrying; zero
	// when it did not say.
	RetryAfter time.Duration
	// Message is the server's or the transport's explanation.
	Message string
	// Err is the underlying error (the SDK's, the transport's or the
	// context's); nil when there is none.
	Err error
}

// Error describes the failure: provider, kind, status and message.
func (e *ProviderError) Error() string {
	var b strings.Builder
	if e.Provider != "" {
		b.WriteString(e.Provider)
		b.WriteString(": ")
	}
	b.WriteString(string(e.Kind))
	if e.StatusCode != 0 {
		b.WriteString(" (HTTP ")
		b.WriteString(strconv.Itoa(e.StatusCode))
		b.WriteString(")")
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, ", retry after %v", e.RetryAfter)
	}
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if msg != "" {
		b.WriteString(": ")
		b.WriteString(msg)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *ProviderError) Unwrap() error { return e.Err }

// Is reports whether target is e's kind (or ErrBadRequest for a context that
// is too long).
func (e *ProviderError) Is(target error) bool {
	k, ok := target.(ErrorKind)
	if !ok {
		return false
	}
	return k == e.Kind || (k == ErrBadRequest && e.Kind == ErrContextTooLong)
}

// Retryable reports whether e's kind may succeed on another try.
func (e *ProviderError) Retryable() bool { return e.Kind.Retryable() }

// Retryable reports whether err is a *ProviderError whose kind may succeed on
// another try. A nil error and errors of other types are not retryable.
func Retryable(err error) bool {
	var pe *ProviderError
	return errors.As(err, &pe) && pe.Retryable()
}

// RetryAfter returns the wait the server asked for, when err is a
// *ProviderError carrying one; zero otherwise.
func RetryAfter(err error) time.Duration {
	var pe *ProviderError
	if errors.As(err, &pe) {
		return pe.RetryAfter
	}
	return 0
}

// KindForStatus classifies an HTTP error status. message, the server's error
// text, tells a context that is too long from other bad requests.
func KindForStatus(status int, message string) ErrorKind {
	switch {
	case status == 401 || status == 403:
		return ErrAuth
	case status == 408:
		return ErrTimeout
	case status == 429:
		return ErrRateLimited
	case status >= 500:
		return ErrOverloaded
	case IsContextTooLong(message):
		return ErrContextTooLong
	default:
		return ErrBadRequest
	}
}

// contextTooLongPhrases are what providers say when a prompt overflows the
// context window (OpenAI's context_length_exceeded and its compatible
// servers, Anthropic's "prompt is too long", Gemini's input token count that
// "exceeds the maximum number of tokens allowed").
var contextTooLongPhrases = []string{
	"context_length_exceeded",
	"context length",
	"context window",
	"maximum context",
	"prompt is too long",
	"too many tokens",
	"input is too long",
	"exceeds the maximum number of tokens", // Gemini's "The input token count (N) exceeds ..."
}

// IsContextTooLong reports whether a bad request's message says the prompt did
// not fit the model's context window.
func IsContextTooLong(message string) bool {
	m := strings.ToLower(message)
	for _, p := range contextTooLongPhrases {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}

// ParseRetryAfter reads a Retry-After header value: seconds (fractions
// allowed) or an HTTP date, measured from now. It returns zero for an empty,
// unparsable or past value.
func ParseRetryAfter(value string, now time.Time) time.Duration {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(value, 64); err == nil {
		if secs <= 0 || secs > 1e9 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := parseHTTPTime(value); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// ContextError classifies a failure caused by ctx: ErrCancelled or ErrTimeout
// wrapping both ctx's error and cause (which may be nil), or nil when ctx is
// not done.
func ContextError(ctx context.Context, provider string, cause error) *ProviderError {
	cerr := ctx.Err()
	if cerr == nil {
		return nil
	}
	kind := ErrTimeout
	if errors.Is(cerr, context.Canceled) {
		kind = ErrCancelled
	}
	err := cerr
	switch {
	case cause == nil || errors.Is(cause, cerr):
		if cause != nil {
			err = cause
		}
	default:
		err = fmt.Errorf("%w: %w", cerr, cause)
	}
	return &ProviderError{Kind: kind, Provider: provider, Err: err}
}

// httpTimeFormats are the date formats an HTTP header may use (RFC 9110
// section 5.6.7: IMF-fixdate, the obsolete RFC 850 and asctime forms), the
// ones http.ParseTime accepts; llm reads them itself so as to link no HTTP
// code.
var httpTimeFormats = []string{"Mon, 02 Jan 2006 15:04:05 GMT", time.RFC850, time.ANSIC}

// parseHTTPTime parses an HTTP date in any of httpTimeFormats, as
// http.ParseTime does.
func parseHTTPTime(value string) (t time.Time, err error) {
	for _, layout := range httpTimeFormats {
		if t, err = time.Parse(layout, value); err == nil {
			return t, nil
		}
	}
	return t, err
}
