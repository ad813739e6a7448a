// Package fileerr holds Error, tapeloop's one error type for a problem at
// a place in a file: a scenario, a tape, a tool's with: block. The errors
// tapeloop returns for such problems are, or wrap, an *Error, so that a
// caller reads the file, line and key with errors.As instead of parsing
// the message; the kind of problem (scenario.ErrScenario, tape.ErrFormat,
// toolkit.ErrUnknownKey, ...) is what it unwraps to, for errors.Is.
//
//	var fe *fileerr.Error
//	if errors.As(err, &fe) {
//		fmt.Println(fe.File, fe.Line, fe.Key, fe.Problem)
//	}
//
// It imports nothing of tapeloop, so every package can return it.
package fileerr

import (
	"strconv"
	"strings"
)

// Error is a problem at a place in a file. Its text is "file:line: key:
// problem", leaving out the parts that are empty.
type Error struct {
	// File is the file's name as it was given to what read it; empty when
	// unknown (a with: block before the harness names its scenario).
	File string
	// Line is the 1-based line of the problem; 0 when it is unknown or
	// concerns the whole file.
	Line int
	// Key is the path of the offending value, like "tape[1].response" or
	// "with.mode"; empty for the file itself.
	Key string
	// Problem says what is wrong.
	Problem string
	// Kind is what the error unwraps to: the sentinel of its kind of
	// problem, or the error that caused it; nil means none.
	Kind error
}

// Error returns "file:line: key: problem", leaving out the parts that are
// empty; a line without a file is "line N: ".
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		b.WriteString("line " + strconv.Itoa(e.Line) + ": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Problem)
	return b.String()
}

// Unwrap returns Kind.
func (e *Error) Unwrap() error { return e.Kind }
