package repair

import (
	"strings"
	"unicode/utf8"
)

// This file holds the lexical layer: character classes, quotes, and the gaps
// (whitespace and comments) between tokens.

// quote is a kind of string delimiter.
type quote uint8

const (
	qNone quote = iota
	qDouble
	qSingle
	qCurlyDouble // “ ” „ ‟ ＂
	qCurlySingle // ‘ ’
	qBacktick    // ` ´
)

// asciiQuote is the quote kind of each ASCII byte.
var asciiQuote = [0x80]quote{'"': qDouble, '\'': qSingle, '`': qBacktick}

// quoteAt reports the quote at s[i] and its size in bytes. An ASCII byte is
// looked up in asciiQuote; only a byte of 0x80 or more goes on to the
// multi-byte quotes in wideQuoteAt.
func quoteAt(s string, i int) (quote, int) {
	if i < len(s) && s[i] < 0x80 {
		k := asciiQuote[s[i]]
		return k, min(int(k), 1) // 1 byte for a quote, 0 for none
	}
	return wideQuoteAt(s, i)
}

// wideQuoteAt is quoteAt past the end of s or for a byte s[i] of 0x80 or
// more.
func wideQuoteAt(s string, i int) (quote, int) {
	if i >= len(s) {
		return qNone, 0
	}
	switch s[i] {
	case 0xC2: // ´ U+00B4
		if i+1 < len(s) && s[i+1] == 0xB4 {
			return qBacktick, 2
		}
	case 0xE2: // U+2018..U+201F: E2 80 98..9F
		if i+2 < len(s) && s[i+1] == 0x80 {
			switch s[i+2] {
			case 0x98, 0x99:
				return qCurlySingle, 3
			case 0x9C, 0x9D, 0x9E, 0x9F: // “ ” „ ‟
				return qCurlyDouble, 3
			}
		}
	case 0xEF: // U+FF02 ＂, the fullwidth quote: EF BC 82
		if i+2 < len(s) && s[i+1] == 0xBC && s[i+2] == 0x82 {
			return qCurlyDouble, 3
		}
	}
	return qNone, 0
}

// closes reports whether a quote of kind k ends a string opened with open.
func closes(open, k quote) bool {
	switch open {
	case qDouble:
		return k == qDouble || k == qCurlyDouble
	case qSingle:
		return k == qSingle || k == qCurlySingle
	case qCurlyDouble:
		return k == qCurlyDouble || k == qDouble
	case qCurlySingle:
		return k == qCurlySingle || k == qSingle
	case qBacktick:
		return k == qBacktick || k == qSingle
	}
	return false
}

// isSpace reports JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// isWordByte reports a byte of an identifier-like word: letters, digits, _ and $
// (and any non-ASCII byte, so words in other scripts stay whole).
func isWordByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c == '$' || c >= 0x80
}

func isHex(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }

// oddSpace returns the invisible or non-ASCII space character at s[i] (BOM,
// zero-width space, no-break space, …), or 0; it is utf8.RuneLen(r) bytes long.
func oddSpace(s string, i int) rune {
	if i >= len(s) || s[i] < 0x80 {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == 0xA0, r == 0x1680, r == 0x180E, r >= 0x2000 && r <= 0x200D,
		r == 0x2028, r == 0x2029, r == 0x202F, r == 0x205F, r == 0x2060,
		r == 0x3000, r == 0xFEFF:
		return r
	}
	return 0
}

// gap describes the whitespace and comments skipped between two tokens.
type gap struct {
	end      int  // index after the gap
	newline  bool // the gap holds a line break
	comments bool // the gap holds a comment
	odd      bool // the gap holds an invisible or non-ASCII space
}

// gapAt scans the whitespace and comments starting at s[i]. An unterminated
// block comment runs to the end.
func gapAt(s string, i int) gap {
	g := gap{end: i}
	for i < len(s) {
		c := s[i]
		switch {
		case isSpace(c):
			if c == '\n' {
				g.newline = true
			}
			i++
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			g.comments = true
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			g.comments = true
			i = commentEnd(s, i+2, "*/")
		case c == '<' && strings.HasPrefix(s[i:], "<!--"):
			g.comments = true
			i = commentEnd(s, i+4, "-->")
		default:
			// Most bytes here are ASCII and end the gap; only a byte of 0x80
			// or more can start an odd space.
			if c < 0x80 {
				g.end = i
				return g
			}
			r := oddSpace(s, i)
			if r == 0 {
				g.end = i
				return g
			}
			g.odd = true
			i += utf8.RuneLen(r)
		}
	}
	g.end = i
	return g
}

// commentEnd returns the index after the end token of a block comment whose
// text starts at i, or len(s) when it is unterminated.
func commentEnd(s string, i int, end string) int {
	if j := indexFrom(s, i, end); j >= 0 {
		return j + len(end)
	}
	return len(s)
}

// indexFrom returns the index of sub in s at or after i, or -1.
func indexFrom(s string, i int, sub string) int {
	for j := i; j+len(sub) <= len(s); j++ {
		if s[j] == sub[0] && s[j:j+len(sub)] == sub {
			return j
		}
	}
	return -1
}

// skip is gapAt that advances the parser and copies the whitespace (without
// comments, odd spaces as plain spaces) to the output.
func (p *parser) skip() gap {
	if p.pos < p.n && !gapByte[p.in[p.pos]] {
		return gap{end: p.pos} // most tokens follow each other directly
	}
	return p.skipGap()
}

// gapByte marks the bytes that can start a gap: whitespace, '/' (a comment)
// and any byte of 0x80 or more (an odd space).
var gapByte = func() (t [256]bool) {
	for _, c := range " \t\n\r/<" {
		t[c] = true
	}
	for c := 0x80; c < 256; c++ {
		t[c] = true
	}
	return t
}()

// skipGap is skip past its quick test.
func (p *parser) skipGap() gap {
	g := gapAt(p.in[:p.n], p.pos)
	if g.end == p.pos {
		return g
	}
	if !g.comments && !g.odd {
		p.out = append(p.out, p.in[p.pos:g.end]...)
		p.pos = g.end
		return g
	}
	if g.comments {
		p.used |= fixComments
	}
	if g.odd {
		p.used |= fixStripBOM
	}
	s := p.in[:g.end]
	for i := p.pos; i < g.end; {
		c := s[i]
		switch {
		case isSpace(c):
			p.out = append(p.out, c)
			i++
		case c == '/' && s[i+1] == '/':
			for i < g.end && s[i] != '\n' {
				i++
			}
		case c == '/':
			i = min(commentEnd(s, i+2, "*/"), g.end)
		case c == '<':
			i = min(commentEnd(s, i+4, "-->"), g.end)
		default:
			r := oddSpace(s, i)
			if r != 0xFEFF && r != 0x200B && r != 0x200C && r != 0x200D && r != 0x2060 {
				p.out = append(p.out, ' ')
			}
			i += utf8.RuneLen(r)
		}
	}
	p.pos = g.end
	return g
}

// at reports whether the input continues with lit at i.
func (p *parser) at(i int, lit string) bool {
	return i+len(lit) <= p.n && p.in[i:i+len(lit)] == lit
}

// fullwidth maps the fullwidth structural characters to ASCII.
var fullwidth = map[rune]byte{'｛': '{', '｝': '}', '［': '[', '］': ']', '：': ':', '，': ',', '＂': '"'}

// hasFullwidthStructure reports whether s is JSON written with fullwidth
// brackets: it holds a ｛ or ［.
func hasFullwidthStructure(s string) bool {
	// Both start with the byte 0xEF, rare in other text.
	return strings.IndexByte(s, 0xEF) >= 0 && (strings.Contains(s, "｛") || strings.Contains(s, "［"))
}

// normalizeFullwidth writes the fullwidth brackets, colons, commas and quotes
// of s in ASCII, except inside strings, where only the closing quote is
// changed: ｛＂a＂：＂时间：10点＂｝ gives {"a":"时间：10点"}.
func normalizeFullwidth(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	var open rune // the quote of the string being read, or 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case open != 0 && r == '\\' && i+1 < len(s):
			b.WriteString(s[i : i+2])
			i += 2
			continue
		case open != 0 && r == open:
			open = 0
			b.WriteByte('"')
		case open != 0:
			b.WriteRune(r)
		case r == '"' || r == '＂':
			open = r
			b.WriteByte('"')
		default:
			if c, ok := fullwidth[r]; ok {
				b.WriteByte(c)
			} else {
				b.WriteRune(r)
			}
		}
		i += size
	}
	return b.String()
}
