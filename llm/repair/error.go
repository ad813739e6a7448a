package repair

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrUnrepairable is wrapped by every refusal of Repair: errors.Is(err,
// ErrUnrepairable) holds for each error it returns.
var ErrUnrepairable = errors.New("unrepairable JSON")

// Error is a refusal: the input could not be made valid JSON without guessing.
// Its text is addressed to the model that wrote the input, e.g.
//
//	re-emit the call as valid JSON: unexpected '}' at line 1, column 9 (tried: trailing_comma, close_brackets)
type Error struct {
	// Problem says what was found where parsing stopped, e.g. "unexpected '}'".
	Problem string
	// Offset is the byte offset in the input where parsing stopped.
	Offset int
	// Line and Column locate Offset, both from 1; Column counts characters.
	Line, Column int
	// Tried lists the fixes applied before parsing stopped, in cascade order;
	// empty when none applied.
	Tried []string
}

// Error returns the message for the model.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("re-emit the call as valid JSON: ")
	b.WriteString(e.Problem)
	fmt.Fprintf(&b, " at line %d, column %d", e.Line, e.Column)
	if len(e.Tried) > 0 {
		b.WriteString(" (tried: ")
		b.WriteString(strings.Join(e.Tried, ", "))
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap returns ErrUnrepairable.
func (e *Error) Unwrap() error { return ErrUnrepairable }

// newError locates offset in input.
func newError(input string, offset int, problem string, tried fix) *Error {
	if offset > len(input) {
		offset = len(input)
	}
	line, col := 1, 1
	before := input[:offset]
	if i := strings.LastIndexByte(before, '\n'); i >= 0 {
		line += strings.Count(before, "\n")
		before = before[i+1:]
	}
	col += utf8.RuneCountInString(before)
	return &Error{Problem: problem, Offset: offset, Line: line, Column: col, Tried: tried.names()}
}

// describe names the text at offset for a message: "unexpected '}'",
// "unexpected character U+0001", "unexpected end of input".
func describe(input string, offset int) string {
	if offset >= len(input) {
		return "unexpected end of input"
	}
	r, _ := utf8.DecodeRuneInString(input[offset:])
	if r < 0x20 || r == utf8.RuneError {
		return fmt.Sprintf("unexpected character %U", r)
	}
	return "unexpected '" + string(r) + "'"
}
