package redact

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// A view of a text as the redactor searches it: its bytes decoded (JSON
// escapes, %XX, line breaks with their indentation dropped) and folded to
// lower case, each mapped back to where it came from, so that what is
// found in the view is replaced in the text.

// view is a text decoded for matching: JSON string escapes and %XX
// decoded, line breaks (written or escaped) dropped with the spaces and tabs
// around them. Each byte of text remembers the span of the original it
// came from; that map is built only when something is found (index), since
// most texts hold no secret and matching needs only text and folded.
type view struct {
	orig   string
	text   []byte // decoded
	folded []byte // text in ASCII lower case, white space dropped
	// from[i] and to[i] bound the original bytes of text[i]; foldAt maps an
	// index of folded to one of text. Nil until index builds them.
	from, to []int
	foldAt   []int
	// breaks holds, in order, the indexes of text before which a line
	// break was dropped.
	breaks []int
	// mem holds text, folded and breaks's memory, from viewBufs; text may
	// outgrow it only if decoding lengthened s, which it never does.
	mem *viewMem
}

// viewMem is the memory a view decodes into: text and folded share buf.
type viewMem struct {
	buf    []byte
	breaks []int
}

// viewBufs holds the memory of released views' text, folded and breaks, so
// that redacting a text allocates nothing for them.
var viewBufs = sync.Pool{New: func() any { return new(viewMem) }}

// maxPooledView is the largest buffer a released view gives back; a
// larger one (a huge text) is left to the garbage collector.
const maxPooledView = 1 << 20

// minWrappedLine is the shortest line a key wrapped over lines may go on
// to: a line holding nothing else, of at least this many characters.
const minWrappedLine = 16

// lineEnd returns where a match of text[start:end] ends: at end, or at the
// first dropped line break inside it, since a key ends at white space. A
// match goes on over a line break only when the next line is wholly inside
// it and at least minWrappedLine long: a key wrapped over lines, not the
// next line's words.
func (v *view) lineEnd(start, end int) int {
	i, _ := slices.BinarySearch(v.breaks, start+1)
	for ; i < len(v.breaks) && v.breaks[i] < end; i++ {
		next := len(v.text)
		if i+1 < len(v.breaks) {
			next = v.breaks[i+1]
		}
		if next > end || next-v.breaks[i] < minWrappedLine {
			return v.breaks[i]
		}
	}
	return end
}

// textSpan returns the span of text decoded from orig[start:end].
func (v *view) textSpan(start, end int) (int, int) {
	v.index()
	i, _ := slices.BinarySearch(v.from, start)
	j, _ := slices.BinarySearch(v.from, end)
	return i, j
}

// newView returns s decoded for matching, without the map to the original
// (see index). Release it when done with it.
func newView(s string) *view {
	m := viewBufs.Get().(*viewMem)
	m.buf = slices.Grow(m.buf[:0], 2*len(s))
	v := &view{orig: s, mem: m, breaks: m.breaks}
	// text and folded share buf: neither is longer than s.
	v.decode(m.buf[:0:len(s)], m.buf[len(s):len(s)], false)
	return v
}

// release gives the view's memory back; v must not be used after it.
func (v *view) release() {
	if v.mem == nil {
		return
	}
	if cap(v.mem.buf) <= maxPooledView {
		// breaks has one index a line at most: no larger than buf.
		v.mem.breaks = v.breaks
		viewBufs.Put(v.mem)
	}
	v.mem, v.text, v.folded, v.breaks = nil, nil, nil, nil
}

// index builds from, to and foldAt, decoding orig again: the same pass as
// newView, which yields the same text and folded.
func (v *view) index() {
	if v.foldAt != nil || len(v.orig) == 0 {
		return
	}
	w := &view{orig: v.orig}
	w.decode(make([]byte, 0, len(v.orig)), make([]byte, 0, len(v.orig)), true)
	v.from, v.to, v.foldAt = w.from, w.to, w.foldAt
}

// decode fills text (into the memory of text) and folded (of folded), and
// with maps also from, to and foldAt.
func (v *view) decode(text, folded []byte, maps bool) {
	s := v.orig
	v.text, v.breaks = text, v.breaks[:0] // breaks: newView's memory, or none
	if maps {
		v.from, v.to = make([]int, 0, len(s)), make([]int, 0, len(s))
	}
	for i := 0; i < len(s); {
		if !special[s[i]] { // the common case: a run of bytes that are themselves
			j := i + 1
			for j < len(s) && !special[s[j]] {
				j++
			}
			v.text = append(v.text, s[i:j]...)
			if maps {
				for k := i; k < j; k++ {
					v.from = append(v.from, k)
					v.to = append(v.to, k+1)
				}
			}
			i = j
			continue
		}
		b, nb, n, lineBreak := decodeAt(s, i)
		if lineBreak { // drop it and the blanks around it
			for len(v.text) > 0 && (v.text[len(v.text)-1] == ' ' || v.text[len(v.text)-1] == '\t') {
				v.text = v.text[:len(v.text)-1]
				if maps {
					v.from, v.to = v.from[:len(v.from)-1], v.to[:len(v.to)-1]
				}
			}
			for i += n; i < len(s) && (s[i] == ' ' || s[i] == '\t'); i++ {
			}
			if len(v.breaks) == 0 || v.breaks[len(v.breaks)-1] != len(v.text) {
				v.breaks = append(v.breaks, len(v.text))
			}
			continue
		}
		for _, c := range b[:nb] {
			v.text = append(v.text, c)
			if maps {
				v.from = append(v.from, i)
				v.to = append(v.to, i+n)
			}
		}
		i += n
	}
	if cap(folded) < len(v.text) {
		folded = make([]byte, 0, len(v.text))
	}
	f, n := folded[:len(v.text)], 0
	if maps {
		v.foldAt = make([]int, len(v.text))
		for i, c := range v.text {
			f[n], v.foldAt[n] = foldByte[c], i
			n += int(foldKeeps[c])
		}
		v.foldAt = v.foldAt[:n]
	} else {
		for _, c := range v.text {
			f[n] = foldByte[c]
			n += int(foldKeeps[c])
		}
	}
	v.folded = f[:n]
}

// foldByte is each byte in ASCII lower case; foldKeeps is 1 for the bytes
// folded text keeps, 0 for the blanks it drops (space and tab).
var foldByte, foldKeeps = func() (lower, keeps [256]byte) {
	for c := range 256 {
		lower[c], keeps[c] = byte(c), 1
		if 'A' <= c && c <= 'Z' {
			lower[c] += 'a' - 'A'
		}
	}
	keeps[' '], keeps['\t'] = 0, 0
	return lower, keeps
}()

// special marks the bytes that may start something decodeAt decodes: a
// line break, an escape or a %XX; every other byte stands for itself.
var special = [256]bool{'\r': true, '\n': true, '\\': true, '%': true}

// lineBreaks are the line breaks decodeAt knows, written and escaped.
var lineBreaks = []string{"\r\n", `\r\n`, "\n", "\r", `\n`, `\r`, `\u000a`, `\u000A`, `\u000d`, `\u000D`}

// decodeAt decodes the character at s[i]: its bytes (b[:nb]), the length
// it takes in s, and whether it is a line break (written, escaped as \n,
// \r or \u000a, or CR LF either way).
func decodeAt(s string, i int) (b [utf8.UTFMax]byte, nb, n int, lineBreak bool) {
	if s[i] == '\n' { // the commonest, and no other line break starts with it
		return b, 0, 1, true
	}
	rest := s[i:]
	for _, br := range lineBreaks {
		if strings.HasPrefix(rest, br) {
			return b, 0, len(br), true
		}
	}
	c := s[i]
	switch {
	case c == '\\' && len(rest) > 1:
		switch rest[1] {
		case '"', '\\', '/':
			b[0] = rest[1]
			return b, 1, 2, false
		case 't':
			b[0] = '\t'
			return b, 1, 2, false
		case 'u':
			if r, n := decodeUnicodeEscape(rest); n > 0 {
				return b, utf8.EncodeRune(b[:], r), n, false
			}
		}
	case c == '%' && len(rest) > 2:
		if h, ok := unhex(rest[1]); ok {
			if l, ok := unhex(rest[2]); ok {
				b[0] = h<<4 | l
				return b, 1, 3, false
			}
		}
	}
	b[0] = c
	return b, 1, 1, false
}

// unhex returns the value of the hex digit c.
func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// decodeUnicodeEscape decodes \uXXXX, or a surrogate pair of them, at the
// start of s; n is 0 when there is none.
func decodeUnicodeEscape(s string) (r rune, n int) {
	hex4 := func(s string) (rune, bool) {
		if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
			return 0, false
		}
		u, err := strconv.ParseUint(s[2:6], 16, 16)
		return rune(u), err == nil
	}
	r, ok := hex4(s)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if lo, ok := hex4(s[6:]); ok {
			if p := utf16.DecodeRune(r, lo); p != utf8.RuneError {
				return p, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

// trimmed returns the bounds of folded's non-punctuation part, for finding
// pieces of a split secret at the ends of a text.
func (v *view) trimmed() (lo, hi int) {
	lo, hi = 0, len(v.folded)
	isEdge := func(c byte) bool { return strings.IndexByte(`"'.,;:()[]{}<>`, c) >= 0 }
	for lo < hi && isEdge(v.folded[lo]) {
		lo++
	}
	for hi > lo && isEdge(v.folded[hi-1]) {
		hi--
	}
	return lo, hi
}

// replace returns the original text with the findings (in text's
// coordinates) replaced by Redacted; overlapping and touching findings
// become one, counted once as the kind of its longest finding.
func (v *view) replace(found []finding, count func(string)) string {
	if len(found) == 0 {
		return v.orig
	}
	v.index()
	slices.SortStableFunc(found, func(a, b finding) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	var b strings.Builder
	last := 0
	for i := 0; i < len(found); {
		cur := found[i]
		best := cur
		for i++; i < len(found) && found[i].start <= cur.end; i++ {
			if found[i].end > cur.end {
				cur.end = found[i].end
			}
			if f := found[i]; f.end-f.start > best.end-best.start || f.end-f.start == best.end-best.start && best.piece && !f.piece {
				best = f
			}
		}
		start, end := v.from[cur.start], v.to[cur.end-1]
		if start < last {
			start = last
		}
		b.WriteString(v.orig[last:start])
		b.WriteString(Redacted)
		last = end
		count(best.kind)
	}
	b.WriteString(v.orig[last:])
	return b.String()
}
