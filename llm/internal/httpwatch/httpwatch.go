// Package httpwatch watches one HTTP exchange from inside a provider SDK, as
// its middleware: the status and headers of the answer, the body of an error
// answer, and whether a server-sent-events body carried OpenAI's
// "data: [DONE]" terminator, which the SDKs' streams do not report. The
// providers classify failures from what it saw.
//
//	x := &httpwatch.Exchange{}
//	stream := client.Chat.Completions.NewStreaming(ctx, params, option.WithMiddleware(x.Middleware))
//	// ... after the stream: x.Status, x.Body, x.Done
package httpwatch

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tapeloop/tapeloop/llm"
)

// maxErrorBody bounds how much of an error response is kept.
const maxErrorBody = 64 << 10

// Exchange is what one exchange showed. The zero value is ready to use; use
// one per call.
type Exchange struct {
	// Status is the answer's HTTP status; zero when none arrived.
	Status int
	// Header is the answer's headers; nil when none arrived.
	Header http.Header
	// Body is an error answer's body (status 400 and above), at most 64 KiB;
	// nil for a success.
	Body []byte
	// Done reports that a line reading "data: [DONE]" passed through a
	// successful answer's body.
	Done bool

	line     [16]byte // the start of the current line
	lineLen  int
	skipping bool // the current line is too long to be the terminator
}

// Middleware records the answer and, for a success, wraps its body so that
// reading it updates Done. Its signature is the SDKs' option.Middleware.
func (x *Exchange) Middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	resp, err := next(req)
	if err != nil || resp == nil {
		return resp, err
	}
	x.Status, x.Header = resp.StatusCode, resp.Header
	if resp.Body == nil {
		return resp, nil
	}
	if resp.StatusCode >= 400 {
		x.Body, _ = io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(x.Body))
		return resp, nil
	}
	resp.Body = &watchedBody{ReadCloser: resp.Body, x: x}
	return resp, nil
}

// watchedBody passes a body through, telling its exchange what it sees.
type watchedBody struct {
	io.ReadCloser
	x *Exchange
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.x.scan(p[:n])
	return n, err
}

// scan looks for a line reading "data: [DONE]" (or "data:[DONE]"), keeping
// only the start of the current line between reads.
func (x *Exchange) scan(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		seg := p
		if i >= 0 {
			seg = p[:i]
		}
		if !x.skipping {
			n := copy(x.line[x.lineLen:], seg)
			x.lineLen += n
			if n < len(seg) {
				x.skipping = true
			}
		}
		if i < 0 {
			return
		}
		if !x.skipping && isDone(x.line[:x.lineLen]) {
			x.Done = true
		}
		x.lineLen, x.skipping = 0, false
		p = p[i+1:]
	}
}

// isDone reports whether an SSE line is the stream's terminator.
func isDone(line []byte) bool {
	line = bytes.TrimRight(line, "\r \t")
	rest, ok := bytes.CutPrefix(line, []byte("data:"))
	return ok && string(bytes.TrimLeft(rest, " ")) == "[DONE]"
}

// StatusError returns the classified error of an error answer (Status 400 and
// above), or nil when the exchange saw none. cause is the SDK's error.
func (x *Exchange) StatusError(provider string, cause error) *llm.ProviderError {
	if x.Status < 400 {
		return nil
	}
	msg := ErrorMessage(x.Body)
	if msg == "" {
		msg = http.StatusText(x.Status)
	}
	return &llm.ProviderError{
		Kind:       llm.KindForStatus(x.Status, msg+" "+string(x.Body)),
		Provider:   provider,
		StatusCode: x.Status,
		RetryAfter: RetryAfter(x.Header, time.Now()),
		Message:    msg,
		Err:        cause,
	}
}

// ErrorMessage finds the explanation in an error body: OpenAI's and
// Anthropic's {"error":{"message":...}} (with OpenAI's code), a bare
// {"error":"..."} (Ollama), {"message":...} (vLLM) or {"detail":...};
// otherwise the body's text, cut at 500 bytes.
func ErrorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
			Code    any    `json:"code"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			if c, ok := inner.Code.(string); ok && c != "" && !strings.Contains(inner.Message, c) {
				return inner.Message + " (" + c + ")"
			}
			return inner.Message
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case v.Message != "":
			return v.Message
		case v.Detail != "":
			return v.Detail
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}

// RetryAfter reads the wait a server asked for: retry-after-ms (OpenAI), then
// the standard Retry-After, measured from now; zero when neither says.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if ms := h.Get("Retry-After-Ms"); ms != "" {
		if f, err := strconv.ParseFloat(ms, 64); err == nil && f > 0 {
			return time.Duration(f * float64(time.Millisecond))
		}
	}
	return llm.ParseRetryAfter(h.Get("Retry-After"), now)
}

// TransportError classifies what is left once context, status and stream
// error events are ruled out: undecodable JSON or a body cut short is a
// malformed response, a network timeout a timeout, a server that could not
// be reached (connection refused, a host name that does not resolve, a TLS
// handshake that failed) unreachable, named with the URL, and anything else
// a failed transport (reported as overloaded: the server could not answer).
func TransportError(provider string, err error) *llm.ProviderError {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &llm.ProviderError{Kind: llm.ErrMalformed, Provider: provider, Message: "undecodable response: " + err.Error(), Err: err}
	}
	if why := unreachable(err); why != "" {
		msg := "cannot reach the server"
		var ue *url.Error
		if errors.As(err, &ue) {
			msg += " at " + plainURL(ue.URL)
		}
		return &llm.ProviderError{Kind: llm.ErrUnreachable, Provider: provider, Message: msg + ": " + why, Err: err}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &llm.ProviderError{Kind: llm.ErrTimeout, Provider: provider, Message: err.Error(), Err: err}
	}
	return &llm.ProviderError{Kind: llm.ErrOverloaded, Provider: provider, Message: "transport: " + err.Error(), Err: err}
}

// unreachable says why err means the server could not be reached at all,
// or "" when it does not: a refused or unroutable connection, a DNS
// failure, a TLS handshake or certificate failure.
func unreachable(err error) string {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "the host name did not resolve: " + dns.Error()
	}
	for _, errno := range []syscall.Errno{syscall.ECONNREFUSED, syscall.EHOSTUNREACH, syscall.ENETUNREACH} {
		if errors.Is(err, errno) {
			return "the connection failed: " + errno.Error()
		}
	}
	var (
		verify    *tls.CertificateVerificationError
		header    tls.RecordHeaderError
		alert     tls.AlertError
		authority x509.UnknownAuthorityError
		host      x509.HostnameError
		invalid   x509.CertificateInvalidError
	)
	if errors.As(err, &verify) || errors.As(err, &header) || errors.As(err, &alert) ||
		errors.As(err, &authority) || errors.As(err, &host) || errors.As(err, &invalid) {
		return "the TLS handshake failed: " + innermost(err)
	}
	return ""
}

// innermost is the text of the error at the end of err's chain (without
// the URL and operation the layers above add).
func innermost(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// plainURL is raw without its query and user information, which may carry
// keys.
func plainURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.RawQuery, u.ForceQuery, u.User = "", false, nil
	return u.String()
}
