package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tapeloop/tapeloop/llm"
)

// answerDecoder is implemented by a format that reads a vendor's answer
// back into an llm.Response: what forwarding a request needs (the bridge's
// record and eval send the agent's own request to the vendor and keep its
// answer).
type answerDecoder interface {
	// decodeAnswer reads a server's answer to c (a JSON body, or the
	// stream when c.Stream) into the response it carries: encode's
	// inverse. An error status returns an *llm.ProviderError with the
	// kind, status, message and Retry-After it says.
	decodeAnswer(c *Call, status int, header http.Header, body []byte) (*llm.Response, error)
}

// ErrNoAnswer is wrapped by the error of DecodeAnswer for a format that
// cannot read a vendor's answer back (so its requests cannot be
// forwarded).
var ErrNoAnswer = errors.New("the format cannot read a vendor's answer")

// ReadsAnswers reports whether format f can read a vendor's answer back
// (DecodeAnswer): whether its requests can be forwarded to the vendor.
func ReadsAnswers(f Format) bool {
	_, ok := f.(answerDecoder)
	return ok
}

// DecodeAnswer reads a vendor server's answer to c, its status, headers and
// whole body (a JSON body, or the event stream when c.Stream), into the
// response it carries: what WriteResponse would have encoded. An error
// status, or an error event in a stream, returns an *llm.ProviderError
// with the kind, status, message and Retry-After the answer says (its
// Provider the format's name); a body that does not read as the format's
// answer, one wrapping llm.ErrMalformed. A format that cannot read answers
// returns an error wrapping ErrNoAnswer.
func DecodeAnswer(c *Call, status int, header http.Header, body []byte) (*llm.Response, error) {
	d, ok := c.Format.(answerDecoder)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoAnswer, c.Format)
	}
	return d.decodeAnswer(c, status, header, body)
}

// now is the clock an HTTP-date Retry-After is measured from.
var now = time.Now

// retryAfterOf reads how long an answer's headers ask to wait: OpenAI's
// retry-after-ms, else Retry-After (seconds or an HTTP date); zero when
// neither says.
func retryAfterOf(h http.Header) time.Duration {
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms > 0 && ms < 1e12 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	return llm.ParseRetryAfter(h.Get("Retry-After"), now())
}

// answerError is the *llm.ProviderError of an error answer of format f:
// status and the message its error body holds (msg; the body's text when
// the body held none), its kind by status and message, and the wait the
// headers ask for.
func answerError(f Format, status int, header http.Header, msg string, body []byte) *llm.ProviderError {
	if msg == "" {
		msg = strings.TrimSpace(string(body))
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	kind := llm.KindForStatus(status, msg)
	if status == 0 {
		// An error event in the middle of a stream: no status of its own.
		kind = llm.ErrOverloaded
		if llm.IsContextTooLong(msg) {
			kind = llm.ErrContextTooLong
		}
	}
	return &llm.ProviderError{Kind: kind, Provider: f.String(), StatusCode: status, Message: msg, RetryAfter: retryAfterOf(header)}
}

// malformed is the error of an answer that does not read as the format's.
func malformed(f Format, format string, args ...any) *llm.ProviderError {
	msg := fmt.Sprintf(format, args...)
	return &llm.ProviderError{Kind: llm.ErrMalformed, Provider: f.String(), StatusCode: http.StatusOK, Message: msg}
}

// sseEvent is one server-sent event: its name (empty when it had none)
// and its data, the data lines joined by newlines.
type sseEvent struct {
	name string
	data []byte
}

// sseEvents splits an event stream into its events, as the
// server-sent-events specification reads it: lines ended by LF, CRLF or
// CR, a blank line ending an event, "event:" naming it, "data:" lines
// holding its data, comments (":") and other fields ignored, one space
// after a colon dropped. An event without data is not returned.
func sseEvents(body []byte) []sseEvent {
	var out []sseEvent
	var ev sseEvent
	var data [][]byte
	flush := func() {
		if data != nil {
			ev.data = bytes.Join(data, []byte("\n"))
			out = append(out, ev)
		}
		ev, data = sseEvent{}, nil
	}
	for len(body) > 0 {
		i := bytes.IndexAny(body, "\r\n")
		line := body
		if i < 0 {
			body = nil
		} else {
			line = body[:i]
			if body[i] == '\r' && i+1 < len(body) && body[i+1] == '\n' {
				i++
			}
			body = body[i+1:]
		}
		if len(line) == 0 {
			flush()
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			ev.name = string(value)
		case "data":
			data = append(data, value)
		}
	}
	flush()
	return out
}

// unmarshal decodes an answer's JSON, the error saying what it was.
func unmarshal(f Format, what string, b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return malformed(f, "the %s is not the format's JSON: %v", what, err)
	}
	return nil
}
