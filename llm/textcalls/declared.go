package textcalls

import (
	"errors"
	"fmt"
	"strings"
)

// Family declares an envelope this package does not know, without code: the
// literal token that opens a call, the one that closes it, and how its
// arguments are written. Declared families are tried before the known ones.
type Family struct {
	// Name is reported in Result.Envelope; it must not be empty.
	Name string
	// Start opens the envelope; it must not be empty.
	Start string
	// End closes it; empty when the format has no closing token (the body
	// then runs to the next Start or the end of the text).
	End string
	// Args is how the body is written: "json" (a JSON object or list of
	// objects with name and arguments or parameters) or "pythonic" (a list of
	// calls f(a=1, b="x"), or one call without the brackets).
	Args string
}

// Check reports what is wrong with the declaration, naming the field.
func (f Family) Check() error {
	var errs []error
	if strings.TrimSpace(f.Name) == "" {
		errs = append(errs, errors.New("name: empty"))
	}
	if f.Start == "" {
		errs = append(errs, errors.New("start: empty"))
	}
	if f.Args != "json" && f.Args != "pythonic" {
		errs = append(errs, fmt.Errorf("args: %q, want json or pythonic", f.Args))
	}
	return errors.Join(errs...)
}

// envelope returns the declared family as an envelope.
func (f Family) envelope() envelope {
	if f.Args == "pythonic" {
		return envelope{f.Name, func(s *source) found { return findPythonicIn(s, f.Start, f.End) }}
	}
	return envelope{f.Name, func(s *source) found { return findTagged(s, f.Start, f.End, false, nil) }}
}

// findPythonicIn: a pythonic call list, or one call, between start and end.
func findPythonicIn(s *source, start, end string) found {
	var f found
	text := s.text
	s.eachTag(start, end, func(i, body, limit, stop int) {
		for _, c := range pyCalls(text, body, limit) {
			f.add(c, span{i, stop})
		}
	})
	return f
}
