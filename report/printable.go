package report

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable returns s with its control characters but line feeds and tabs
// escaped as Go escapes them (\x1b, \r, \a, \u0085), and invalid UTF-8 as
// \ufffd, so that a scenario's name, a failure or a model's output printed
// on a terminal cannot drive it. It is the one way the commands print a
// name or a text from a scenario file or a run; s itself when it has none.
func Printable(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool {
	return r != '\n' && r != '\t' && (unicode.IsControl(r) || r == utf8.RuneError)
}
