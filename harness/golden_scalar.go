package harness

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// errGoldenText is wrapped by the error for an outcome whose golden cannot
// be written: a workspace path or state key that is not valid UTF-8.
var errGoldenText = errors.New("cannot write the golden")

// The golden format is YAML 1.2 written by goldenWriter, which lays out the
// fixed shape of an Outcome and writes each piece of text in the first of
// these styles that holds it exactly:
//
//   - multi-line text of printable characters: a literal block ("|", "|-"
//     without a final line break, "|+" with several; "2" after it when its
//     first non-empty line starts with a space or tab), outside flow
//     collections;
//   - plain, for text that starts with a letter, "_", "/" or a digit (then
//     reading as no number, date or time: "1.5s", not "1.5" or "12:30"),
//     holds printable characters other than a tab, no ": " or " #", does not
//     end with ":" or a space, is no YAML keyword (true, null, yes, ...) and,
//     inside a flow collection ({...}, [...]), holds ASCII letters, digits,
//     spaces and "_./+=@%()-" only;
//   - single-quoted ('it''s'), for other printable single-line text;
//   - double-quoted with Go's escapes (strconv.Quote: "\t", "\x00",
//     "\u2028"), which YAML reads the same, for anything else.
//
// Text that is not valid UTF-8 (a binary file's content) is written as
// "!!binary " and its base64; a key that is not valid UTF-8 is an error.

// goldenWriter appends a golden. Its zero value is empty and keeps the
// whole golden in buf.
type goldenWriter struct {
	buf []byte
	err error // the first error met
	// sink, when set, takes buf's text at spill once buf holds spillAt
	// bytes or more; spilled says it did, buf then starting a line.
	sink    func([]byte)
	spilled bool
}

// spillAt is how much text a streaming goldenWriter gathers before handing
// it on.
const spillAt = 32 << 10

// spill hands buf's text to the sink, when there is one and buf holds
// spillAt bytes or more. It is called where buf ends a line (after a turn
// or a call).
func (w *goldenWriter) spill() {
	if w.sink == nil || len(w.buf) < spillAt || w.buf[len(w.buf)-1] != '\n' {
		return
	}
	w.sink(w.buf)
	w.buf, w.spilled = w.buf[:0], true
}

// spaces is what pad appends from, at most this much at a time.
const spaces = "                                "

// pad appends n spaces.
func (w *goldenWriter) pad(n int) {
	for n > len(spaces) {
		w.buf = append(w.buf, spaces...)
		n -= len(spaces)
	}
	w.buf = append(w.buf, spaces[:max(n, 0)]...)
}

// raw appends s as is.
func (w *goldenWriter) raw(s string) { w.buf = append(w.buf, s...) }

// int appends i.
func (w *goldenWriter) int(i int) { w.buf = strconv.AppendInt(w.buf, int64(i), 10) }

// endLine ends the line unless a literal block already ended it.
func (w *goldenWriter) endLine() {
	if n := len(w.buf); n == 0 && !w.spilled || n > 0 && w.buf[n-1] != '\n' {
		w.buf = append(w.buf, '\n')
	}
}

// text appends s as a value after "key: " or "- ": in a flow collection
// (flow), or in a block one where a literal block's lines are indented by
// indent (two more than the key or dash).
func (w *goldenWriter) text(s string, flow bool, indent int) {
	switch {
	case !utf8.ValidString(s):
		w.raw("!!binary ")
		w.raw(base64.StdEncoding.EncodeToString([]byte(s)))
	case !flow && literalText(s):
		w.literal(s, indent)
	default:
		w.line(s, flow)
	}
}

// line appends s on one line: plain, single-quoted or double-quoted.
func (w *goldenWriter) line(s string, flow bool) {
	switch {
	case plainText(s, flow):
		w.raw(s)
	case singleLinePrintable(s):
		w.raw("'")
		w.raw(strings.ReplaceAll(s, "'", "''"))
		w.raw("'")
	default:
		w.raw(strconv.Quote(s))
	}
}

// key appends the mapping key k and its ":". A key past YAML's 1024-character
// limit for an implicit key is written as an explicit one ("? k", then ":"
// on the next line at column indent), and complex reports that.
func (w *goldenWriter) key(k string, flow bool, indent int) (complex bool) {
	if !utf8.ValidString(k) {
		if w.err == nil {
			w.err = fmt.Errorf("%w: the key %q is not valid UTF-8", errGoldenText, k)
		}
		k = strings.ToValidUTF8(k, "\uFFFD")
	}
	if len(k) > 1000 && !flow {
		w.raw("? ")
		w.raw(strconv.Quote(k))
		w.raw("\n")
		w.pad(indent)
		w.raw(":")
		return true
	}
	w.line(k, flow)
	w.raw(":")
	return false
}

// literal appends s as a literal block whose lines are at column indent.
func (w *goldenWriter) literal(s string, indent int) {
	body, chomp := s, "-"
	if strings.HasSuffix(s, "\n") {
		body, chomp = s[:len(s)-1], ""
		if strings.HasSuffix(body, "\n") {
			chomp = "+"
		}
	}
	w.raw("|")
	w.raw(chomp)
	if firstLineIndented(body) {
		w.raw("2")
	}
	w.raw("\n")
	for {
		line, rest, more := strings.Cut(body, "\n")
		if line != "" {
			w.pad(indent)
			w.raw(line)
		}
		w.buf = append(w.buf, '\n')
		if !more {
			return
		}
		body = rest
	}
}

// literalText reports whether s is written as a literal block: it spans
// lines, holds printable characters, tabs and "\n" only, and something other
// than line breaks.
func literalText(s string) bool {
	if strings.IndexByte(s, '\n') < 0 || strings.Trim(s, "\n") == "" {
		return false
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && !printable(r) {
			return false
		}
	}
	return true
}

// firstLineIndented reports whether the first non-empty line of a block
// starts with a space or a tab, which would be taken for the block's
// indentation without an indentation indicator.
func firstLineIndented(body string) bool {
	first := strings.TrimLeft(body, "\n")
	return strings.HasPrefix(first, " ") || strings.HasPrefix(first, "\t")
}

// keywords read as something other than a string when plain (in YAML 1.2 or
// 1.1), lower-cased.
var keywords = map[string]bool{
	"true": true, "false": true, "yes": true, "no": true, "on": true, "off": true,
	"y": true, "n": true, "null": true,
}

// flowPlain are the characters of plain text inside a flow collection.
const flowPlain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+=@%()- "

// flowPlainByte marks the bytes of flowPlain.
var flowPlainByte = func() (t [256]bool) {
	for i := range len(flowPlain) {
		t[flowPlain[i]] = true
	}
	return t
}()

// onlyFlowPlain reports whether every byte of s is one of flowPlain.
func onlyFlowPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if !flowPlainByte[s[i]] {
			return false
		}
	}
	return true
}

// plainText reports whether s is written plain (see the format above).
func plainText(s string, flow bool) bool {
	if s == "" {
		return false
	}
	first, _ := utf8.DecodeRuneInString(s)
	switch {
	case first == '_' || first == '/' || unicode.IsLetter(first):
	case first >= '0' && first <= '9':
		if numberLike(s) {
			return false
		}
	default:
		return false
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasSuffix(s, ":") || strings.HasSuffix(s, " ") {
		return false
	}
	if flow && !onlyFlowPlain(s) {
		return false
	}
	if len(s) <= 5 && keywords[strings.ToLower(s)] {
		return false
	}
	for _, r := range s {
		if !printable(r) {
			return false
		}
	}
	return true
}

// numberLike reports whether s, which starts with a digit, may read as
// something other than a string (in YAML 1.2 or 1.1): a number (with "_"
// separators, "0x", "0o" or "0b"), a date or time, a sexagesimal (":").
func numberLike(s string) bool {
	if strings.Trim(s, "0123456789_.eE+-") == "" {
		if _, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64); err == nil {
			return true
		}
	}
	if len(s) > 1 && s[0] == '0' && strings.ContainsRune("xXoObB", rune(s[1])) {
		return true
	}
	if strings.ContainsRune(s, ':') {
		return true
	}
	// a date: four digits and "-"
	return len(s) >= 5 && s[4] == '-' && strings.Trim(s[:4], "0123456789") == ""
}

// singleLinePrintable reports whether s is written single-quoted.
func singleLinePrintable(s string) bool {
	for _, r := range s {
		if !printable(r) {
			return false
		}
	}
	return true
}

// printable reports whether r is written as itself in a scalar: a letter,
// mark, number, punctuation, symbol or the ASCII space (unicode.IsPrint: no
// tab, line break, other space, control or format character).
func printable(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= ' ' && r < 0x7f
	}
	return unicode.IsPrint(r)
}
