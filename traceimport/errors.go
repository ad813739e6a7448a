package traceimport

import (
	"errors"
	"fmt"
	"strconv"
)

// The sentinels the errors of this package wrap; compare with errors.Is.
var (
	// ErrFormat is wrapped by the errors about a file that is not a trace
	// this package reads: bad JSON, a wrong type, a file or value too large
	// or too deeply nested.
	ErrFormat = errors.New("not a readable trace")
	// ErrNoContent is wrapped by the error for a trace whose model calls
	// were recorded without their messages (content capture was off).
	ErrNoContent = errors.New("the trace holds no message content")
	// ErrRefused is wrapped by the errors for a trace that holds an agent
	// run this package cannot turn into a whole scenario: a tool result no
	// model call asked for, model calls that cannot be ordered, a history
	// the agent rewrote, a part of a message that is not text or a call.
	ErrRefused = errors.New("the trace cannot be imported")
)

// Error is a problem with a trace, at a place in its file and, when it is
// about one span, naming that span. It wraps one of the sentinels above.
type Error struct {
	// File is the trace file; empty when the trace did not come from one.
	File string
	// Line is the 1-based line in File; 0 when unknown (a single JSON
	// document names its spans instead).
	Line int
	// Span names the span the problem is about, as `"NAME" (span ID)`;
	// empty when it is about the file.
	Span string
	// Problem says what is wrong and, where there is one, what to do.
	Problem string
	// Err is the sentinel: ErrFormat, ErrNoContent or ErrRefused.
	Err error
}

// Error returns "file:line: span "NAME" (span ID): problem", leaving out
// the parts that are empty.
func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.Span != "" {
		if s != "" {
			s += ": "
		}
		s += "span " + e.Span
	}
	if s != "" {
		s += ": "
	}
	return s + e.Problem
}

// Unwrap returns the sentinel.
func (e *Error) Unwrap() error { return e.Err }

// spanRef names sp for an error.
func spanRef(sp *Span) string {
	if sp == nil {
		return ""
	}
	if sp.SpanID == "" {
		return strconv.Quote(sp.Name)
	}
	return fmt.Sprintf("%q (%s)", sp.Name, sp.SpanID)
}

// refuse returns an ErrRefused error about sp.
func refuse(sp *Span, format string, args ...any) *Error {
	return &Error{File: sp.File, Line: sp.Line, Span: spanRef(sp), Problem: fmt.Sprintf(format, args...), Err: ErrRefused}
}
