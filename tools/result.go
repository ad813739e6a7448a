package tools

import (
	"fmt"
	"strings"
)

// Result is what a tool call produced. A tool's failure is a Result with Failure
// set, which the model reads; a Go error from Execute is turned into one.
type Result struct {
	// Content is what the model reads. A failed result always has content.
	Content string `json:"content" yaml:"content"`
	// UserText, when set, is shown to the user instead of Content; Silent hides the
	// call from the user altogether.
	UserText string `json:"user_text,omitempty" yaml:"user_text,omitempty"`
	Silent   bool   `json:"silent,omitempty" yaml:"silent,omitempty"`
	// Details are for logs and UIs; they are never sent to the model.
	Details map[string]string `json:"details,omitempty" yaml:"details,omitempty"`
	// Effects are the changes the call made. Nil means none.
	Effects []Effect `json:"effects,omitempty" yaml:"effects,omitempty"`
	// Terminate asks the loop to stop after this batch (it stops only when every
	// result of the batch asks).
	Terminate bool `json:"terminate,omitempty" yaml:"terminate,omitempty"`
	// Started marks an asynchronous call that has only begun: its completion
	// arrives later through the Completion in the call's context.
	Started bool `json:"started,omitempty" yaml:"started,omitempty"`
	// Failure is nil for a success.
	Failure *Failure `json:"failure,omitempty" yaml:"failure,omitempty"`
}

// Failed reports whether r is a failure.
func (r *Result) Failed() bool { return r != nil && r.Failure != nil }

// Kind returns the failure kind, or "" for a success.
func (r *Result) Kind() FailureKind {
	if r == nil || r.Failure == nil {
		return ""
	}
	return r.Failure.Kind
}

// Clone returns a copy of r whose slices and maps are not shared with r.
func (r *Result) Clone() *Result {
	if r == nil {
		return nil
	}
	c := *r
	if r.Details != nil {
		c.Details = make(map[string]string, len(r.Details))
		for k, v := range r.Details {
			c.Details[k] = v
		}
	}
	if r.Effects != nil {
		c.Effects = append([]Effect(nil), r.Effects...)
	}
	if r.Failure != nil {
		f := *r.Failure
		c.Failure = &f
	}
	return &c
}

// Success returns a successful result with the given content and effects.
func Success(content string, effects ...Effect) *Result {
	return &Result{Content: content, Effects: effects}
}

// Fail returns a failed result of the given kind. The content the model reads is
// "error (kind): message".
func Fail(kind FailureKind, message string) *Result {
	return &Result{
		Content: failureContent(kind, message),
		Failure: &Failure{Kind: kind, Message: message},
	}
}

// Failf is Fail with a formatted message.
func Failf(kind FailureKind, format string, args ...any) *Result {
	return Fail(kind, fmt.Sprintf(format, args...))
}

// ValidationFailure returns a validation failure: what was wrong and what to fix.
func ValidationFailure(problem, fix string) *Result {
	msg := problem
	if fix != "" {
		msg = strings.TrimRight(problem, ".") + ". Fix: " + fix
	}
	return Fail(KindValidation, msg)
}

// TransientFailure returns a transient failure: the call may succeed if retried.
func TransientFailure(message string) *Result { return Fail(KindTransient, message) }

// Terminating returns a successful result that asks the loop to stop.
func Terminating(content string) *Result { return &Result{Content: content, Terminate: true} }

// FromError converts an error returned by a tool into a failed result, keeping
// the kind of a *Error and using KindFailed for any other error.
func FromError(err error) *Result {
	return Fail(KindOf(err), err.Error())
}

func failureContent(kind FailureKind, message string) string {
	if message == "" {
		message = defaultMessages[kind]
	}
	return fmt.Sprintf("error (%s): %s", kind, message)
}

var defaultMessages = map[FailureKind]string{
	KindValidation:  "the arguments are invalid; fix them and call again",
	KindTransient:   "a temporary failure; the call may succeed later",
	KindNotFound:    "no such tool",
	KindUnavailable: "the tool is not available now",
	KindBlocked:     "the call was refused",
	KindPanic:       "the tool crashed",
	KindTimeout:     "the tool did not finish in time",
	KindCancelled:   "the call was cancelled",
	KindFailed:      "the tool failed",
}
