package yamlx

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Writer appends YAML by hand, byte for byte as Marshal writes the same
// nodes, for callers with a fixed document shape (the golden encoder) that
// cannot afford yaml.v3's event emitter. The caller lays out the collections
// (indentation, "- ", ":"); the Writer writes the scalars of Text, Quoted,
// Int, Bool, a null node, numbers, and mapping keys (simple or complex), in
// any context, choosing each style as yaml.v3's encoder and emitter do
// (encoder.node, yaml_emitter_analyze_scalar, yaml_emitter_select_scalar_style
// and the scalar writers, with the unbounded line width Marshal uses).
// The zero Writer is empty.
type Writer struct {
	Buf []byte
	// Failed is set once the writer met what Marshal does not write (a key
	// that is not valid UTF-8, which Marshal rejects): the caller then takes
	// Marshal's path, which reports the error.
	Failed bool
}

// OK reports whether everything written so far is what Marshal writes.
func (w *Writer) OK() bool { return !w.Failed }

// Pad appends n spaces.
func (w *Writer) Pad(n int) {
	const spaces = "                                "
	for n > len(spaces) {
		w.Buf = append(w.Buf, spaces...)
		n -= len(spaces)
	}
	w.Buf = append(w.Buf, spaces[:n]...)
}

// Raw appends s as is.
func (w *Writer) Raw(s string) { w.Buf = append(w.Buf, s...) }

// Int appends i as an integer scalar.
func (w *Writer) Int(i int) { w.Buf = strconv.AppendInt(w.Buf, int64(i), 10) }

// Bool appends b as a boolean scalar.
func (w *Writer) Bool(b bool) { w.Buf = strconv.AppendBool(w.Buf, b) }

// EndLine ends the line, unless the last scalar written (a literal block
// ending in a line break) already did, as the emitter does before the next
// line's indentation.
func (w *Writer) EndLine() {
	if !w.AtLineStart() {
		w.Buf = append(w.Buf, '\n')
	}
}

// AtLineStart reports whether the output ends with a line break: "\n", or
// the raw U+2028 or U+2029 a literal or single-quoted scalar may hold.
func (w *Writer) AtLineStart() bool {
	b := w.Buf
	n := len(b)
	if n == 0 || b[n-1] == '\n' {
		return true
	}
	return n >= 3 && b[n-3] == 0xe2 && b[n-2] == 0x80 && (b[n-1] == 0xa8 || b[n-1] == 0xa9)
}

// Scalar styles, as a node asks for them (the emitter may choose another).
const (
	plainStyle = iota
	singleStyle
	doubleStyle
	literalStyle
)

// Text appends s as Marshal writes Text(s) as a mapping value or sequence
// item: in a flow collection (flow), or in a block one, where a literal
// block's lines are indented by indent (two more than the collection's).
// The caller has written "key: ", "- " or "? ".
func (w *Writer) Text(s string, flow bool, indent int) { w.text(s, plainStyle, flow, indent) }

// Quoted appends s as Marshal writes Quoted(s) (see Text).
func (w *Writer) Quoted(s string, flow bool, indent int) { w.text(s, singleStyle, flow, indent) }

// DoubleQuoted appends s as Marshal writes Text(s) given the double-quoted
// style (see Text).
func (w *Writer) DoubleQuoted(s string, flow bool, indent int) {
	if !utf8.ValidString(s) {
		w.scalar(binaryValue(s), "!!binary", doubleStyle, flow, false, indent)
		return
	}
	w.scalar(s, "", doubleStyle, flow, false, indent)
}

// text writes a Text node; plain is the style asked for single-line text
// (plainStyle for Text, singleStyle for Quoted).
func (w *Writer) text(s string, plain int, flow bool, indent int) {
	switch {
	case !utf8.ValidString(s):
		// Text tags it !!binary; the tag stays, as base64 never reads
		// back as binary.
		w.scalar(binaryValue(s), "!!binary", plainStyle, flow, false, indent)
	case otherBreaks(s) || strings.HasPrefix(s, "\t") && strings.IndexByte(s, '\n') >= 0:
		w.scalar(s, "", doubleStyle, flow, false, indent)
	case strings.IndexByte(s, '\n') >= 0:
		if !flow && hasTrailingSpace(s) && literalByHand(s) {
			w.handLiteral(s, indent) // as Marshal writes it, not the emitter
			return
		}
		w.scalar(s, "", literalStyle, flow, false, indent)
	case plain == plainStyle && resolveTag(s) != "!!str":
		w.scalar(s, "", doubleStyle, flow, false, indent) // the encoder forces quotes
	default:
		w.scalar(s, "", plain, flow, false, indent)
	}
}

// otherBreaks reports whether s holds a line break other than "\n": "\r",
// U+0085, U+2028 or U+2029 (strings.ContainsAny, without its slow path for
// a set that is not ASCII).
func otherBreaks(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\r':
			return true
		case 0xc2:
			if i+1 < len(s) && s[i+1] == 0x85 {
				return true
			}
		case 0xe2:
			if i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9) {
				return true
			}
		}
	}
	return false
}

// Number appends the scalar of a node tagged tag ("!!int" or "!!float")
// holding value: plain, with the tag written when value would read back as
// something else (100000000000000000000 reads as a float).
func (w *Writer) Number(value, tag string, flow bool, indent int) {
	if resolveTag(value) == tag {
		tag = ""
	}
	w.scalar(value, tag, plainStyle, flow, false, indent)
}

// Key appends the block mapping key k and its ":" as Marshal writes a key
// node (Add), the cursor being at column indent, where the mapping's keys
// start: "k:" for a simple key; for a complex one (multi-line or longer than
// 128 bytes) "? k", then ":" on a line of its own at indent. After a complex
// key's ":" a block collection starts on the same line. It reports whether
// the key was complex.
func (w *Writer) Key(k string, indent int) (complex bool) {
	if !utf8.ValidString(k) {
		w.Failed = true // Marshal: "cannot marshal invalid UTF-8 data as !!str"
		return false
	}
	st := plainStyle
	switch {
	case strings.HasPrefix(k, "\t") && strings.IndexByte(k, '\n') >= 0:
		st = doubleStyle // as Add asks
	case strings.IndexByte(k, '\n') >= 0:
		st = literalStyle
	case resolveTag(k) != "!!str":
		st = doubleStyle
	}
	a := analyze(k)
	if !a.multiline && len(k) <= 128 {
		w.scalarAnalysed(k, a, "", st, false, true, indent+2)
		w.Buf = append(w.Buf, ':')
		return false
	}
	w.Buf = append(w.Buf, "? "...)
	w.scalarAnalysed(k, a, "", st, false, false, indent+2)
	w.EndLine()
	w.Pad(indent)
	w.Buf = append(w.Buf, ':')
	return true
}

// FlowKey appends the key k of a flow mapping and its ":"; k must be a
// plain word (the fixed keys of the golden's flow mappings).
func (w *Writer) FlowKey(k string) {
	w.Buf = append(w.Buf, k...)
	w.Buf = append(w.Buf, ':')
}

// binaryValue is the value of Text(s) for s that is not UTF-8: base64 on
// one line.
func binaryValue(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// handLiteral writes the literal block Marshal writes by hand
// (replaceWithBlock) for s, which literalByHand accepts.
func (w *Writer) handLiteral(s string, indent int) {
	body := s
	if strings.HasSuffix(s, "\n") {
		w.Buf = append(w.Buf, '|')
		body = s[:len(s)-1]
	} else {
		w.Buf = append(w.Buf, "|-"...)
	}
	for {
		line, rest, more := strings.Cut(body, "\n")
		w.Buf = append(w.Buf, '\n')
		if line != "" {
			w.Pad(indent)
			w.Buf = append(w.Buf, line...)
		}
		if !more {
			return
		}
		body = rest
	}
}

// scalar writes value in the style the emitter chooses from the style asked
// for (st), after tag when tag is not empty; simpleKey is the context of a
// simple mapping key.
func (w *Writer) scalar(value, tag string, st int, flow, simpleKey bool, indent int) {
	w.scalarAnalysed(value, analyze(value), tag, st, flow, simpleKey, indent)
}

func (w *Writer) scalarAnalysed(value string, a analysis, tag string, st int, flow, simpleKey bool, indent int) {
	// yaml_emitter_select_scalar_style
	if simpleKey && a.multiline {
		st = doubleStyle
	}
	if st == plainStyle {
		if flow && !a.flowPlain || !flow && !a.blockPlain || value == "" && (flow || simpleKey) {
			st = singleStyle
		}
	}
	if st == singleStyle && !a.single {
		st = doubleStyle
	}
	if st == literalStyle && (!a.block || flow || simpleKey) {
		st = doubleStyle
	}
	if tag != "" {
		w.Buf = append(w.Buf, tag...)
		w.Buf = append(w.Buf, ' ')
	}
	switch st {
	case plainStyle:
		w.Buf = append(w.Buf, value...) // never holds a line break
	case singleStyle:
		w.single(value, indent)
	case doubleStyle:
		w.double(value)
	default:
		w.literal(value, indent)
	}
}

// single writes value single-quoted (yaml_emitter_write_single_quoted_scalar,
// lines never folded).
func (w *Writer) single(value string, indent int) {
	w.Buf = append(w.Buf, '\'')
	if strings.IndexByte(value, '\n') < 0 && !otherBreaks(value) {
		for {
			i := strings.IndexByte(value, '\'')
			if i < 0 {
				break
			}
			w.Buf = append(w.Buf, value[:i+1]...)
			w.Buf = append(w.Buf, '\'')
			value = value[i+1:]
		}
		w.Buf = append(w.Buf, value...)
		w.Buf = append(w.Buf, '\'')
		return
	}
	breaks := false
	for _, r := range value {
		switch {
		case r == ' ':
			w.Buf = append(w.Buf, ' ')
		case isBreak(r):
			if !breaks && r == '\n' {
				w.Buf = append(w.Buf, '\n')
			}
			w.Buf = utf8.AppendRune(w.Buf, r)
			breaks = true
		default:
			if breaks {
				w.Pad(indent)
			}
			if r == '\'' {
				w.Buf = append(w.Buf, '\'')
			}
			w.Buf = utf8.AppendRune(w.Buf, r)
			breaks = false
		}
	}
	w.Buf = append(w.Buf, '\'')
}

// double writes value double-quoted (yaml_emitter_write_double_quoted_scalar,
// lines never folded).
func (w *Writer) double(value string) {
	const hex = "0123456789ABCDEF"
	// The emitter checks for a byte order mark at the start of the value
	// for every character: after one, it escapes them all.
	bom := strings.HasPrefix(value, "\ufeff")
	w.Buf = append(w.Buf, '"')
	for _, r := range value {
		if !bom && printable(r) && !isBreak(r) && r != '"' && r != '\\' {
			w.Buf = utf8.AppendRune(w.Buf, r)
			continue
		}
		w.Buf = append(w.Buf, '\\')
		switch r {
		case 0:
			w.Buf = append(w.Buf, '0')
		case 0x07:
			w.Buf = append(w.Buf, 'a')
		case 0x08:
			w.Buf = append(w.Buf, 'b')
		case 0x09:
			w.Buf = append(w.Buf, 't')
		case 0x0a:
			w.Buf = append(w.Buf, 'n')
		case 0x0b:
			w.Buf = append(w.Buf, 'v')
		case 0x0c:
			w.Buf = append(w.Buf, 'f')
		case 0x0d:
			w.Buf = append(w.Buf, 'r')
		case 0x1b:
			w.Buf = append(w.Buf, 'e')
		case '"':
			w.Buf = append(w.Buf, '"')
		case '\\':
			w.Buf = append(w.Buf, '\\')
		case 0x85:
			w.Buf = append(w.Buf, 'N')
		case 0xa0:
			w.Buf = append(w.Buf, '_')
		case 0x2028:
			w.Buf = append(w.Buf, 'L')
		case 0x2029:
			w.Buf = append(w.Buf, 'P')
		default:
			digits := 8
			switch {
			case r <= 0xff:
				w.Buf, digits = append(w.Buf, 'x'), 2
			case r <= 0xffff:
				w.Buf, digits = append(w.Buf, 'u'), 4
			default:
				w.Buf = append(w.Buf, 'U')
			}
			for k := (digits - 1) * 4; k >= 0; k -= 4 {
				w.Buf = append(w.Buf, hex[(r>>uint(k))&0xf])
			}
		}
	}
	w.Buf = append(w.Buf, '"')
}

// literal writes value as a literal block (yaml_emitter_write_literal_scalar
// and yaml_emitter_write_block_scalar_hints): "|", an indentation indicator
// when the value starts with a space or a line break, a chomping indicator,
// then the lines, those with content indented by indent.
func (w *Writer) literal(value string, indent int) {
	w.Buf = append(w.Buf, '|')
	first, _ := utf8.DecodeRuneInString(value)
	if first == ' ' || isBreak(first) {
		w.Buf = append(w.Buf, '2')
	}
	last, n := utf8.DecodeLastRuneInString(value)
	switch {
	case !isBreak(last):
		w.Buf = append(w.Buf, '-')
	case n == len(value):
		w.Buf = append(w.Buf, '+')
	default:
		if prev, _ := utf8.DecodeLastRuneInString(value[:len(value)-n]); isBreak(prev) {
			w.Buf = append(w.Buf, '+')
		}
	}
	w.Buf = append(w.Buf, '\n')
	if !otherBreaks(value) {
		// Line by line: only "\n" breaks.
		for value != "" {
			line, rest, more := strings.Cut(value, "\n")
			if line != "" {
				w.Pad(indent)
				w.Buf = append(w.Buf, line...)
			}
			if more {
				w.Buf = append(w.Buf, '\n')
			}
			value = rest
		}
		return
	}
	breaks := true
	for _, r := range value {
		if isBreak(r) {
			w.Buf = utf8.AppendRune(w.Buf, r)
			breaks = true
			continue
		}
		if breaks {
			w.Pad(indent)
		}
		w.Buf = utf8.AppendRune(w.Buf, r)
		breaks = false
	}
}

// analysis is what yaml_emitter_analyze_scalar finds in a scalar: the
// styles it allows.
type analysis struct {
	multiline, flowPlain, blockPlain, single, block bool
}

// analyze scans s as yaml_emitter_analyze_scalar does (s is valid UTF-8).
func analyze(s string) analysis {
	if s == "" {
		return analysis{blockPlain: true, single: true}
	}
	var flowInd, blockInd, breaks, special, tabs bool
	var leadSpace, leadBreak, trailSpace, trailBreak, breakSpace, spaceBreak bool
	if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		flowInd, blockInd = true, true
	}
	precededByWhite, prevSpace, prevBreak := true, false, false
	for i, r := range s {
		if i > 0 && r < 0x80 && quiet[r] {
			// A printable character that is no indicator, space or
			// break after the first: it only ends a run of spaces or
			// breaks.
			precededByWhite, prevSpace, prevBreak = false, false, false
			continue
		}
		next := i + utf8.RuneLen(r)
		followedByWhite := next >= len(s) || s[next] == ' ' || s[next] == '\t'
		if i == 0 {
			switch r {
			case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
				flowInd, blockInd = true, true
			case '?', ':':
				flowInd = true
				if followedByWhite {
					blockInd = true
				}
			case '-':
				if followedByWhite {
					flowInd, blockInd = true, true
				}
			}
		} else {
			switch r {
			case ',', '?', '[', ']', '{', '}':
				flowInd = true
			case ':':
				flowInd = true
				if followedByWhite {
					blockInd = true
				}
			case '#':
				if precededByWhite {
					flowInd, blockInd = true, true
				}
			}
		}
		if r == '\t' {
			tabs = true
		} else if !printable(r) {
			special = true
		}
		switch {
		case r == ' ':
			if i == 0 {
				leadSpace = true
			}
			if next == len(s) {
				trailSpace = true
			}
			if prevBreak {
				breakSpace = true
			}
			prevSpace, prevBreak = true, false
		case isBreak(r):
			breaks = true
			if i == 0 {
				leadBreak = true
			}
			if next == len(s) {
				trailBreak = true
			}
			if prevSpace {
				spaceBreak = true
			}
			prevSpace, prevBreak = false, true
		default:
			prevSpace, prevBreak = false, false
		}
		precededByWhite = r == ' ' || r == '\t' || r == 0 || isBreak(r)
	}
	a := analysis{multiline: breaks, flowPlain: true, blockPlain: true, single: true, block: true}
	if leadSpace || leadBreak || trailSpace || trailBreak || breaks || breakSpace || spaceBreak || tabs || special {
		a.flowPlain, a.blockPlain = false, false
	}
	if trailSpace || spaceBreak || special {
		a.block = false
	}
	if breakSpace || spaceBreak || tabs || special {
		a.single = false
	}
	if flowInd {
		a.flowPlain = false
	}
	if blockInd {
		a.blockPlain = false
	}
	return a
}

// quiet marks the ASCII characters analyze has nothing to note about
// after the first: printable, and neither an indicator it looks for there
// (",?[]{}:#") nor a space, tab or break.
var quiet = func() (q [0x80]bool) {
	for c := 0x21; c < 0x7f; c++ {
		q[c] = strings.IndexByte(",?[]{}:#", byte(c)) < 0
	}
	return q
}()

// printable reports whether the emitter writes r as is (is_printable): no
// control characters, surrogates, U+FEFF, U+FFFE, U+FFFF, or anything
// beyond U+FFFF.
func printable(r rune) bool {
	return r == '\n' || r >= 0x20 && r <= 0x7e || r >= 0xa0 && r <= 0xd7ff || r >= 0xe000 && r <= 0xfffd && r != 0xfeff
}

// isBreak reports whether r is a line break to YAML.
func isBreak(r rune) bool {
	return r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029
}

// resolveTag is the tag yaml.v3 resolves the plain scalar s to ("!!str",
// "!!int", "!!float", "!!bool", "!!null", "!!timestamp" or "!!merge"), as
// resolve("", s) does.
func resolveTag(s string) string {
	if s == "" {
		return "!!null"
	}
	switch c := s[0]; {
	case c == '+' || c == '-' || c >= '0' && c <= '9' || c == '.':
	case strings.IndexByte("yYnNtTfFoO~<", c) >= 0:
	default:
		return "!!str"
	}
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return "!!bool"
	case "~", "null", "Null", "NULL":
		return "!!null"
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return "!!float"
	case "<<":
		return "!!merge"
	}
	switch c := s[0]; {
	case c == '.':
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return "!!float"
		}
	case c == '+' || c == '-' || c >= '0' && c <= '9':
		if isTimestamp(s) {
			return "!!timestamp"
		}
		plain := strings.ReplaceAll(s, "_", "")
		if intLike(plain) { // else ParseInt and ParseUint fail (and allocate their errors)
			if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
				return "!!int"
			}
			if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
				return "!!int"
			}
		}
		if yamlFloat(plain) {
			if _, err := strconv.ParseFloat(plain, 64); err == nil {
				return "!!float"
			}
		}
		for _, p := range []struct {
			prefix string
			base   int
		}{{"0b", 2}, {"0o", 8}} {
			if digits, ok := strings.CutPrefix(plain, p.prefix); ok {
				if _, err := strconv.ParseInt(digits, p.base, 64); err == nil {
					return "!!int"
				}
				if _, err := strconv.ParseUint(digits, p.base, 64); err == nil {
					return "!!int"
				}
			} else if digits, ok := strings.CutPrefix(plain, "-"+p.prefix); ok {
				if _, err := strconv.ParseInt("-"+digits, p.base, 64); err == nil {
					return "!!int"
				}
			}
		}
	}
	return "!!str"
}

// intLike reports whether s is a sign and then only digits and the letters
// of base prefixes and hexadecimal digits: all strconv.ParseInt(s, 0, 64)
// can accept once underscores are gone.
func intLike(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20 // lower case for letters
		if !(s[i] >= '0' && s[i] <= '9' || c >= 'a' && c <= 'f' || c == 'x' || c == 'o') {
			return false
		}
	}
	return true
}

// yamlFloat reports whether s matches
// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$.
func yamlFloat(s string) bool {
	digits := func() int {
		n := 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		s = s[n:]
		return n
	}
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s != "" && s[0] == '.' {
		s = s[1:]
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if s != "" && s[0] == '.' {
			s = s[1:]
			digits()
		}
	}
	if s != "" && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s != "" && (s[0] == '+' || s[0] == '-') {
			s = s[1:]
		}
		if digits() == 0 {
			return false
		}
	}
	return s == ""
}

// timestampFormats are the layouts yaml.v3 reads a plain timestamp in.
var timestampFormats = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

// isTimestamp reports whether yaml.v3 reads the plain scalar s as a
// timestamp: four digits, "-", then one of timestampFormats.
func isTimestamp(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, f := range timestampFormats {
		if _, err := time.Parse(f, s); err == nil {
			return true
		}
	}
	return false
}
