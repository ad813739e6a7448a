package tools

import (
	"errors"
	"fmt"
)

// FailureKind classifies a failed tool call. The kinds and their names are part
// of the scenario file format.
type FailureKind string

// The failure kinds.
const (
	// KindValidation: the model's arguments were wrong; it should fix them and retry.
	KindValidation FailureKind = "validation"
	// KindTransient: the world failed; the same call may succeed later.
	KindTransient FailureKind = "transient"
	// KindNotFound: no tool has the called name.
	KindNotFound FailureKind = "not_found"
	// KindUnavailable: the tool exists but is not available now.
	KindUnavailable FailureKind = "unavailable"
	// KindBlocked: a hook or policy refused the call.
	KindBlocked FailureKind = "blocked"
	// KindPanic: the tool panicked.
	KindPanic FailureKind = "panic"
	// KindTimeout: the tool did not finish within its timeout.
	KindTimeout FailureKind = "timeout"
	// KindCancelled: the run was cancelled while the tool ran.
	KindCancelled FailureKind = "cancelled"
	// KindFailed: the tool failed and retrying will not help.
	KindFailed FailureKind = "failed"
)

// FailureKinds lists every kind, in the order of the format's documentation.
var FailureKinds = []FailureKind{
	KindValidation, KindTransient, KindNotFound, KindUnavailable, KindBlocked,
	KindPanic, KindTimeout, KindCancelled, KindFailed,
}

// Valid reports whether k is one of the defined kinds.
func (k FailureKind) Valid() bool {
	for _, v := range FailureKinds {
		if k == v {
			return true
		}
	}
	return false
}

// ParseFailureKind returns the kind named s, or an error listing the valid names.
func ParseFailureKind(s string) (FailureKind, error) {
	k := FailureKind(s)
	if !k.Valid() {
		return "", fmt.Errorf("unknown failure kind %q (want one of %v)", s, FailureKinds)
	}
	return k, nil
}

// Failure says why a call failed: its kind and a message for the model.
type Failure struct {
	Kind    FailureKind `json:"kind" yaml:"kind"`
	Message string      `json:"message" yaml:"message"`
}

// Error is a Go error that carries a failure kind. A tool that returns an *Error
// from Execute gets a failed result of that kind; any other error becomes
// KindFailed.
type Error struct {
	Kind FailureKind
	Err  error
}

// Error returns the message of the wrapped error.
func (e *Error) Error() string {
	if e.Err == nil {
		return string(e.Kind)
	}
	return e.Err.Error()
}

// Unwrap returns the wrapped error.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of the given kind with a formatted message.
func Errorf(kind FailureKind, format string, args ...any) error {
	return &Error{Kind: kind, Err: fmt.Errorf(format, args...)}
}

// KindOf returns the failure kind carried by err: the kind of the first *Error in
// its chain, or KindFailed.
func KindOf(err error) FailureKind {
	var te *Error
	if errors.As(err, &te) && te.Kind.Valid() {
		return te.Kind
	}
	return KindFailed
}
