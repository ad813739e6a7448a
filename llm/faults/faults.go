// Package faults makes a live provider misbehave on purpose, at the HTTP
// transport under the vendor's SDK, so that a test can show what an agent does
// when the provider rate-limits it, fails, cuts a stream short, sends broken
// tool-call arguments or answers too late.
//
// A Transport is an http.RoundTripper that counts the requests made through it
// and applies the Fault scripted for each:
//
//	ft := &faults.Transport{Faults: []faults.Fault{
//		{Call: 1, HTTP: 429, RetryAfter: 2 * time.Second},
//		{Call: 3, Stream: faults.StreamCut, AfterBytes: 120},
//	}}
//	model, err := llm.Open(ctx, "openai/gpt-4.1-mini", &llm.OpenOptions{
//		HTTPClient: &http.Client{Transport: ft},
//	})
//
// Call numbers count HTTP requests to the provider, retries included: with
// the 429 above on call 1, the loop's retry is call 2. The fault is applied
// where the SDK cannot tell it from a real one (a status and an error body in
// the vendor's own shape, an SSE stream that stops or carries an error event),
// so the SDK's own retries must be off (the built-in providers turn them off)
// and the loop's retry policy is what a test observes. Applied tells which
// faults fired; what the loop then saw is recorded in the tape as it would be
// for a real failure, so a recording made under faults replays without them.
//
// The dialect of an error body or stream is told from the request path, by
// the wire format that claims it (llm/wire); a path none claims gets
// OpenAI's Chat Completions dialect.
package faults

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// The values of Fault.Stream.
const (
	// StreamCut ends the response body after AfterBytes bytes, as a dropped
	// connection does: no terminator, possibly in the middle of a tool call.
	StreamCut = "cut"
	// StreamError sends an error event (of kind Type) after the stream's
	// first event, as a server that fails after answering 200 does.
	StreamError = "error"
)

// The values of Fault.Arguments.
const (
	// ArgumentsTruncate cuts each tool call's JSON arguments to half their
	// length, as a model that stops mid-call does.
	ArgumentsTruncate = "truncate"
)

// The values of Fault.Type, the kind of error a StreamError event carries.
const (
	TypeOverloaded  = "overloaded"
	TypeRateLimited = "rate_limited"
	TypeServer      = "server"
)

// Fault is one scripted misbehaviour, applied to one request. Exactly one of
// HTTP, Stream, Arguments and Latency is set.
type Fault struct {
	// Call is the 1-based number of the request the fault applies to.
	Call int `json:"call" yaml:"call"`
	// HTTP answers with this status (400 to 599) and an error body in the
	// vendor's shape instead of forwarding the request.
	HTTP int `json:"http,omitempty" yaml:"http,omitempty"`
	// RetryAfter, with HTTP, is sent as the Retry-After header (whole
	// seconds, rounded up); zero sends none.
	RetryAfter time.Duration `json:"retry_after,omitempty" yaml:"retry_after,omitempty"`
	// Stream is StreamCut or StreamError; it applies to the forwarded
	// response (streamed or not).
	Stream string `json:"stream,omitempty" yaml:"stream,omitempty"`
	// AfterBytes, with StreamCut, is how many bytes of the body arrive;
	// zero means none.
	AfterBytes int `json:"after_bytes,omitempty" yaml:"after_bytes,omitempty"`
	// Type, with StreamError, is the error's kind; empty means TypeOverloaded.
	Type string `json:"type,omitempty" yaml:"type,omitempty"`
	// Arguments is ArgumentsTruncate.
	Arguments string `json:"arguments,omitempty" yaml:"arguments,omitempty"`
	// Latency delays the request this long before forwarding it; the
	// request's context (a model-call timeout) cuts the wait short and
	// fails the request.
	Latency time.Duration `json:"latency,omitempty" yaml:"latency,omitempty"`
}

// ErrFault is wrapped by every error of Validate.
var ErrFault = errors.New("invalid fault")

// Error is a problem with one fault of a list, which it names by index. It
// matches ErrFault.
type Error struct {
	// Index is the fault's place in the list; Problem says what is wrong.
	Index   int
	Problem string
}

// Error returns "invalid fault: faults[INDEX]: PROBLEM".
func (e *Error) Error() string {
	return fmt.Sprintf("%v: faults[%d]: %s", ErrFault, e.Index, e.Problem)
}

// Unwrap returns ErrFault.
func (e *Error) Unwrap() error { return ErrFault }

// Validate checks a list of faults: each names a call (at most one fault a
// call) and exactly one misbehaviour with sensible values. The error is an
// *Error naming the first bad fault.
func Validate(list []Fault) error {
	seen := map[int]int{}
	for i, f := range list {
		if err := f.validate(); err != nil {
			return &Error{Index: i, Problem: err.Error()}
		}
		if j, dup := seen[f.Call]; dup {
			return &Error{Index: i, Problem: fmt.Sprintf("call %d already has faults[%d] (one fault a call)", f.Call, j)}
		}
		seen[f.Call] = i
	}
	return nil
}

func (f Fault) validate() error {
	if f.Call < 1 {
		return fmt.Errorf("call must be 1 or more, got %d", f.Call)
	}
	var set []string
	if f.HTTP != 0 {
		set = append(set, "http")
	}
	if f.Stream != "" {
		set = append(set, "stream")
	}
	if f.Arguments != "" {
		set = append(set, "arguments")
	}
	if f.Latency != 0 {
		set = append(set, "latency")
	}
	switch {
	case len(set) == 0:
		return errors.New("no fault given (want one of http, stream, arguments, latency)")
	case len(set) > 1:
		return fmt.Errorf("%s and %s in one fault (want exactly one)", set[0], set[1])
	case f.HTTP != 0 && (f.HTTP < 400 || f.HTTP > 599):
		return fmt.Errorf("http must be an error status from 400 to 599, got %d", f.HTTP)
	case f.RetryAfter != 0 && f.HTTP == 0:
		return errors.New("retry_after goes with http")
	case f.RetryAfter < 0 || f.Latency < 0 || f.AfterBytes < 0:
		return errors.New("durations and byte counts must not be negative")
	case f.Stream != "" && f.Stream != StreamCut && f.Stream != StreamError:
		return fmt.Errorf("unknown stream fault %q (want %s or %s)", f.Stream, StreamCut, StreamError)
	case f.AfterBytes != 0 && f.Stream != StreamCut:
		return errors.New("after_bytes goes with stream: cut")
	case f.Type != "" && f.Stream != StreamError:
		return errors.New("type goes with stream: error")
	case f.Type != "" && !slices.Contains([]string{TypeOverloaded, TypeRateLimited, TypeServer}, f.Type):
		return fmt.Errorf("unknown error type %q (want %s, %s or %s)", f.Type, TypeOverloaded, TypeRateLimited, TypeServer)
	case f.Arguments != "" && f.Arguments != ArgumentsTruncate:
		return fmt.Errorf("unknown arguments fault %q (want %s)", f.Arguments, ArgumentsTruncate)
	}
	return nil
}

// String describes the fault in the scenario's words, e.g. "call 2: http 429,
// retry_after 2s".
func (f Fault) String() string {
	switch {
	case f.HTTP != 0 && f.RetryAfter != 0:
		return fmt.Sprintf("call %d: http %d, retry_after %v", f.Call, f.HTTP, f.RetryAfter)
	case f.HTTP != 0:
		return fmt.Sprintf("call %d: http %d", f.Call, f.HTTP)
	case f.Stream == StreamCut:
		return fmt.Sprintf("call %d: stream cut after %d bytes", f.Call, f.AfterBytes)
	case f.Stream == StreamError:
		return fmt.Sprintf("call %d: stream error %s", f.Call, f.errorType())
	case f.Arguments != "":
		return fmt.Sprintf("call %d: arguments %s", f.Call, f.Arguments)
	default:
		return fmt.Sprintf("call %d: latency %v", f.Call, f.Latency)
	}
}

func (f Fault) errorType() string {
	if f.Type == "" {
		return TypeOverloaded
	}
	return f.Type
}

// Transport applies scripted faults to the requests made through it. The
// zero value forwards everything to http.DefaultTransport. It is safe for
// concurrent use; calls are numbered in the order RoundTrip is entered.
type Transport struct {
	// Base makes the real requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Faults are the faults to apply, by call number.
	Faults []Fault
	// Sleep waits d for a Latency fault and returns early with ctx's error
	// when ctx ends first. Nil means: a latency that would run past the
	// request's deadline fails at once with context.DeadlineExceeded (as
	// the wait would have, without waiting), a shorter one is waited for on
	// a real timer.
	Sleep func(ctx context.Context, d time.Duration) error

	mu      sync.Mutex
	calls   int
	applied []Fault
}

// Calls returns how many requests went through t.
func (t *Transport) Calls() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.calls
}

// markApplied records that f was applied.
func (t *Transport) markApplied(f Fault) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.applied = append(t.applied, f)
}

// Applied returns the faults applied so far, in call order: an HTTP or
// latency fault always applies; a stream or arguments fault only to a
// request the server answered with 200.
func (t *Transport) Applied() []Fault {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.applied)
}

// RoundTrip makes the request, or fails it, as the fault for its number says.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.mu.Lock()
	t.calls++
	n := t.calls
	var fault *Fault
	for i := range t.Faults {
		if t.Faults[i].Call == n {
			fault = &t.Faults[i]
			break
		}
	}
	t.mu.Unlock()
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if fault == nil {
		return base.RoundTrip(req)
	}
	d := dialectOf(req)
	switch {
	case fault.HTTP != 0:
		if req.Body != nil {
			req.Body.Close()
		}
		t.markApplied(*fault)
		return errorResponse(d, req, fault.HTTP, fault.RetryAfter), nil
	case fault.Latency != 0:
		sleep := t.Sleep
		if sleep == nil {
			sleep = realSleep
		}
		t.markApplied(*fault)
		if err := sleep(req.Context(), fault.Latency); err != nil {
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, err
		}
		return base.RoundTrip(req)
	}
	resp, err := base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		// Nothing to cut or break: the fault did not apply.
		return resp, err
	}
	defer t.markApplied(*fault)
	switch {
	case fault.Stream == StreamCut:
		resp.Body = &cutBody{rc: resp.Body, left: fault.AfterBytes}
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	case fault.Stream == StreamError:
		resp.Body = errorStream(d, resp.Body, fault.errorType(), isSSE(resp))
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	case fault.Arguments == ArgumentsTruncate:
		body, err := truncateArguments(d, resp)
		if err != nil {
			return nil, fmt.Errorf("faults: call %d: truncating arguments: %w", n, err)
		}
		resp.Body = body
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	}
	return resp, nil
}

func realSleep(ctx context.Context, d time.Duration) error {
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
		return context.DeadlineExceeded
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

func isSSE(resp *http.Response) bool {
	return strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
}
