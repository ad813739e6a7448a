package textcalls

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Family declares an envelope this package does not know, without code: the
// literal token that opens a call, the one that closes it, and how its
// arguments are written. Declared families are tried before the known ones.
type Family struct {
	// Name is reported in Result.Envelope; it must not be empty nor the
	// name of a known envelope (see Envelopes).
	Name string
	// Start opens the envelope; it must not be empty.
	Start string
	// End closes it; empty when the format has no closing token (the body
	// then runs to the next Start or the end of the text).
	End string
	// Args is how the body is written (see ArgEncodings): "json" (a JSON
	// object or list of objects with name and arguments or parameters),
	// "pythonic" (a list of calls f(a=1, b="x"), or one call without the
	// brackets) or "xml" (one call: the tool's name, then one tag a value,
	// see the package doc).
	Args string
}

// ArgEncodings are the values Family.Args may take.
var ArgEncodings = []string{"json", "xml", "pythonic"}

// Check reports what is wrong with the declaration, naming the field.
func (f Family) Check() error {
	var errs []error
	switch {
	case strings.TrimSpace(f.Name) == "":
		errs = append(errs, errors.New("name: empty"))
	case slices.Contains(Envelopes(), f.Name):
		errs = append(errs, fmt.Errorf("name: %q is a known envelope; give the declared one a name of its own", f.Name))
	}
	if strings.TrimSpace(f.Start) == "" {
		errs = append(errs, errors.New("start: empty"))
	}
	if f.End != "" && strings.TrimSpace(f.End) == "" {
		errs = append(errs, errors.New("end: only space; leave it out when the format has no closing token"))
	}
	if !slices.Contains(ArgEncodings, f.Args) {
		errs = append(errs, fmt.Errorf("args: %q, want one of %s", f.Args, strings.Join(ArgEncodings, ", ")))
	}
	return errors.Join(errs...)
}

// Envelopes returns the names of the envelopes this package knows, in the
// order they are tried: the names Result.Envelope reports and
// Options.Formats may list.
func Envelopes() []string {
	out := make([]string, len(envelopeOrder))
	for k, e := range envelopeOrder {
		out[k] = e.name
	}
	return out
}

// envelope returns the declared family as an envelope.
func (f Family) envelope() envelope {
	switch f.Args {
	case "pythonic":
		return envelope{f.Name, func(s *source) found { return findPythonicIn(s, f.Start, f.End) }}
	case "xml":
		return envelope{f.Name, func(s *source) found { return findXMLIn(s, f.Start, f.End) }}
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

// findXMLIn: one call written XML-ish (xmlishCall) between start and end;
// without an end token, the call ends with the line its last value closes
// on, and the lines after it stay text.
func findXMLIn(s *source, start, end string) found {
	var f found
	text := s.text
	s.eachTag(start, end, func(i, body, limit, stop int) {
		name, args, n, ok := xmlishCall(text[body:limit], end == "")
		if !ok {
			return
		}
		if end == "" {
			stop = body + n // the text on the lines after the call stays
		}
		f.add(rawCall{name: name, args: args, untyped: true, cut: cutAt(text, stop, end)}, span{i, stop})
	})
	return f
}
