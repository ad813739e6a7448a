// Package faultspec describes provider faults as data: the Fault a
// scenario's faults: list scripts, its kinds, and Validate. It runs
// nothing and links no HTTP code, so that the scenario format can hold
// faults; llm/faults.Transport is what applies them to live requests.
package faultspec

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
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
		return fmt.Sprintf("call %d: stream error %s", f.Call, cmp.Or(f.Type, TypeOverloaded))
	case f.Arguments != "":
		return fmt.Sprintf("call %d: arguments %s", f.Call, f.Arguments)
	default:
		return fmt.Sprintf("call %d: latency %v", f.Call, f.Latency)
	}
}
