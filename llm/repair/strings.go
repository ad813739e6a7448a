package repair

import "strings"

// This file parses strings: where a string ends when its quotes are unreliable,
// and how its content is escaped.

// parseString parses a string opened by a quote of kind open (size bytes) at
// pos and, unless it is a key, the strings joined to it with +.
func (p *parser) parseString(ctx context, open quote, size int) bool {
	if !p.parseStringOnly(ctx, open, size) {
		return false
	}
	return ctx == ctxKey || p.concatenate(ctx)
}

// parseStringOnly parses a string without concatenation.
func (p *parser) parseStringOnly(ctx context, open quote, size int) bool {
	p.used |= quoteFix(open)
	start := p.pos + size
	from, end, resume, how := p.embedded(start, open, ctx)
	if end < 0 {
		from = start
		end, resume, how = p.scanString(start, open, ctx)
	}
	if !p.writeString(p.in[from:end], open, how, from) {
		return false
	}
	p.pos = resume
	return true
}

// embedded finds the end of a string whose content is not scanned as usual:
// doubled quotes, ""x"", and JSON text, "{"x": 1}", whose closing bracket is
// followed by the string's closing quote and what fits the context. end is
// -1 when the string is neither; from is where its content starts.
func (p *parser) embedded(start int, open quote, ctx context) (from, end, resume int, how stringEnd) {
	s := p.in[:p.n]
	if start >= len(s) {
		return start, -1, 0, 0
	}
	switch c := s[start]; {
	case c == '"' && open == qDouble && !p.fitsAfter(start+1, ctx):
		for j := start + 1; j+1 < len(s); j++ {
			switch s[j] {
			case '\n':
				return start, -1, 0, 0
			case '"':
				if s[j+1] == '"' && p.fitsAfter(j+2, ctx) {
					p.used |= fixInnerQuotes
					return start + 1, j, j + 2, endQuote
				}
				return start, -1, 0, 0
			}
		}
	case c == '{' || c == '[':
		m := matchText(s, start)
		if m < 0 {
			return start, -1, 0, 0
		}
		if k, size := quoteAt(s, m); k != qNone && closes(open, k) && p.fitsAfter(m+size, ctx) {
			return start, m, m + size, endQuote
		}
	}
	return start, -1, 0, 0
}

// matchText returns the index after the bracket that closes the one at
// s[i], on its line, skipping strings; -1 when there is none.
func matchText(s string, i int) int {
	depth := 0
	in := false
	for j := i; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '\n':
			return -1
		case c == '\\':
			j++
		case c == '"':
			in = !in
		case in:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

// fitsAfter reports whether what follows a string's closing quote at i fits
// the context well enough to end it: a colon after a key, else a strong fit.
func (p *parser) fitsAfter(i int, ctx context) bool {
	if ctx == ctxKey {
		j := gapAt(p.in[:p.n], i).end
		return j < p.n && (p.in[j] == ':' || p.at(j, "："))
	}
	return p.endsString(i, ctx) == fitStrong
}

// quoteFix is the fix a string opened with a quote of kind open needs.
func quoteFix(open quote) fix {
	switch open {
	case qSingle:
		return fixSingleQuotes
	case qCurlyDouble, qCurlySingle, qBacktick:
		return fixCurlyQuotes
	}
	return 0
}

// stringEnd says how scanString found the end of a string.
type stringEnd uint8

const (
	endQuote    stringEnd = iota // its closing quote
	endInferred                  // a comma, bracket or line break where its closing quote is missing
	endCut                       // the end of the input
)

// scanString finds the end of the string whose content starts at start. It
// returns the end of the content, where parsing resumes, and how the string
// ended.
//
// A closing quote ends the string only when what follows fits the context (the
// end, a comma and a next item, a closing bracket, a colon after a key); any
// other quote is part of the text and gets escaped. When a quote after a comma
// does not fit, the string is taken to end before that comma: {"a":"b,"c":1}.
// When no quote ends the string, it runs to the end of the input, or, when the
// input ends with a closing bracket, to the first comma, bracket or line break.
func (p *parser) scanString(start int, open quote, ctx context) (end, resume int, how stringEnd) {
	s := p.in[:p.n]
	for i := start; i < len(s); {
		c := s[i]
		if c == '\\' {
			if ctx == ctxKey {
				if resume, ok := p.escapedKeyEnd(i+1, open); ok {
					// {"a\": 1}: the quote closes the key, the backslash is text.
					return i + 1, resume, endQuote
				}
			}
			i += 2
			continue
		}
		if c < 0x80 && asciiQuote[c] == qNone {
			i++ // most bytes: not a quote (quoteAt is not inlined)
			continue
		}
		k, size := quoteAt(s, i)
		if k == qNone || !closes(open, k) {
			i++
			continue
		}
		fit := fitStrong
		if ctx != ctxKey {
			fit = p.endsString(i+size, ctx)
		}
		if fit != fitNone && k != open && (open == qDouble || open == qSingle) {
			p.used |= fixCurlyQuotes // "a”: a straight quote closed by a curly one
		}
		if fit == fitStrong {
			return i, i + size, endQuote
		}
		if b := lastNonGap(s, start, i); b > start && (s[b] == ',' || s[b] == '+') {
			// The quote opens the next item, or is a stray one before a next
			// value ([1,"a,b,"2]); the string's own end quote is missing or
			// follows a backslash (["C:\", "D:\"]).
			if fit == fitWeak {
				p.strayQuote = i
			}
			return p.inferredEnd(start, lastNonGap(s, start, b)+1, b, open)
		}
		if fit == fitWeak && !opensText(s, start, i) {
			return i, i + size, endQuote
		}
		if ctx == ctxValue || ctx == ctxArray {
			if e := p.junkEnd(i+size, ctx); e >= 0 {
				// {"b": "ok" true}: text after the string, dropped.
				p.used |= fixTrim
				return i, e, endQuote
			}
		}
		i += size
	}
	rest := strings.TrimRight(s[start:], " \t\r\n")
	if len(p.stack) > 0 && rest != "" && (rest[len(rest)-1] == ']' || rest[len(rest)-1] == '}') {
		for i := start; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case ',':
				// A comma ends it only before a next member: an unclosed
				// string holding commas is not split into invented members.
				if (ctx == ctxValue || ctx == ctxKey) && !p.keyStarts(gapAt(s, i+1).end) {
					continue
				}
				return p.inferredEnd(start, trimSpaceEnd(s, start, i), i, open)
			case ']', '}', '\n':
				return p.inferredEnd(start, trimSpaceEnd(s, start, i), i, open)
			}
		}
	}
	p.used |= fixCloseString
	return len(s), len(s), endCut
}

// inferredEnd ends the string whose content starts at start and runs to end,
// before the comma, bracket or line break at resume, where no closing quote
// was found. When the content ends with a closing quote after a backslash,
// ["C:\", 1], that quote is the string's end and the backslash was text (it
// is kept, escaped), unless the quote pairs up with an earlier escaped one,
// "say \"hi\"}. Otherwise the closing quote is missing and is added.
func (p *parser) inferredEnd(start, end, resume int, open quote) (int, int, stringEnd) {
	s := p.in[:end]
	escaped := 0
	for i := start; i < end; i++ {
		if s[i] != '\\' {
			continue
		}
		if k, size := quoteAt(s, i+1); closes(open, k) {
			escaped++
			if i+1+size == end && escaped%2 == 1 {
				return i + 1, resume, endQuote
			}
		}
		i++ // the escaped byte
	}
	p.used |= fixCloseString
	return end, resume, endInferred
}

// opensText reports whether the content s[start:i] of a string ends with an
// opening bracket: a quote right after it is inside JSON written in the
// string's text ("see {"k": 1}"), not the string's end.
func opensText(s string, start, i int) bool {
	b := lastNonSpace(s, start, i)
	return b >= start && (s[b] == '{' || s[b] == '[')
}

// junkEnd returns where the text after a string's closing quote at j ends
// when it is junk before a delimiter that fits ctx: words without quotes,
// colons or brackets, or a # comment or a stray code fence to the end of the
// line. It returns -1 when the text is not junk.
func (p *parser) junkEnd(j int, ctx context) int {
	s := p.in[:p.n]
	i := j
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i >= len(s) {
		return -1
	}
	if s[i] == '#' || p.at(i, "```") {
		for i < len(s) && s[i] != '\n' {
			i++
		}
	} else {
		start := i
		for ; i < len(s); i++ {
			c := s[i]
			if c == ',' || c == '}' || c == ']' || c == '\n' || c == '\r' {
				break
			}
			if c == ':' || c == '{' || c == '[' {
				return -1
			}
			if k, _ := quoteAt(s, i); k != qNone {
				return -1
			}
		}
		if i == start {
			return -1
		}
	}
	switch p.endsString(i, ctx) {
	case fitStrong:
		return i
	case fitWeak:
		if i < len(s) && s[i] == '\n' {
			return i
		}
	}
	return -1
}

// lastNonGap returns the index of the last byte in s[from:to] that is neither
// whitespace nor part of a block comment, or from-1.
func lastNonGap(s string, from, to int) int {
	i := to - 1
	for i >= from {
		switch {
		case isSpace(s[i]):
			i--
		case s[i] == '/' && i > from && s[i-1] == '*':
			j := strings.LastIndex(s[from:i-1], "/*")
			if j < 0 {
				return i
			}
			i = from + j - 1
		default:
			return i
		}
	}
	return i
}

// lastNonSpace returns the index of the last non-space byte in s[from:to], or
// from-1.
func lastNonSpace(s string, from, to int) int {
	i := to - 1
	for i >= from && isSpace(s[i]) {
		i--
	}
	return i
}

// trimSpaceEnd returns the end of s[from:to] without trailing whitespace.
func trimSpaceEnd(s string, from, to int) int { return lastNonSpace(s, from, to) + 1 }

// fit says how well the text after a candidate closing quote fits its context.
type fit uint8

const (
	fitNone   fit = iota // the quote is part of the text
	fitWeak              // a next value follows without a comma
	fitStrong            // the end, a delimiter and a next item, a bracket
)

// endsString reports how well the text at i, after a candidate closing quote,
// fits the context.
func (p *parser) endsString(i int, ctx context) fit {
	s := p.in[:p.n]
	g := gapAt(s, i)
	j := g.end
	if j >= len(s) {
		return fitStrong
	}
	c := s[j]
	if c == '+' {
		if k, _ := quoteAt(s, gapAt(s, j+1).end); k != qNone {
			return fitStrong
		}
	}
	switch ctx {
	case ctxValue:
		switch {
		case c == '}' || c == ']' || c == ')' && p.parenEnds(j):
			return fitStrong
		case c == ',':
			k := gapAt(s, j+1).end
			if k >= len(s) || s[k] == '}' || s[k] == ']' || p.keyStarts(k) || p.keyCut(k) || p.arrayMissingOpen(k) {
				return fitStrong
			}
			return fitNone
		case p.keyStarts(j):
			return fitWeak
		}
	case ctxArray:
		switch {
		case c == ']' || c == '}' || c == ')' && p.parenEnds(j):
			return fitStrong
		case c == ',':
			k := gapAt(s, j+1).end
			if k >= len(s) || s[k] == ']' || s[k] == '}' || p.valueStarts(k) {
				return fitStrong
			}
			return fitNone
		}
		if q, _ := quoteAt(s, j); q != qNone {
			return fitWeak
		}
		if c == '{' || c == '[' || c == '-' || isDigit(c) || p.startsLiteral(j) {
			return fitWeak
		}
	case ctxCall:
		if c == ')' {
			return fitStrong
		}
	case ctxTop:
		switch {
		case c == ',':
			k := gapAt(s, j+1).end
			if k >= len(s) || p.valueStarts(k) {
				return fitStrong
			}
		case c == ';' && p.restIsSpace(j+1):
			return fitStrong
		case p.at(j, "```"):
			return fitStrong
		case g.newline && p.valueStarts(j):
			return fitWeak
		case p.restIsClosers(j):
			return fitStrong
		}
	}
	return fitNone
}

// parenEnds reports whether the ')' at i ends a value: it closes a tuple, or
// is a stray one before a delimiter or the end.
func (p *parser) parenEnds(i int) bool {
	if len(p.stack) > 0 && p.stack[len(p.stack)-1] == kindTuple {
		return true
	}
	if p.calls > 0 {
		return false
	}
	j := gapAt(p.in[:p.n], i+1).end
	return j >= p.n || p.in[j] == ',' || p.in[j] == '}' || p.in[j] == ']'
}

// keyStarts reports whether a key followed by a colon starts at i.
func (p *parser) keyStarts(i int) bool {
	s := p.in[:p.n]
	if i >= len(s) {
		return false
	}
	if k, size := quoteAt(s, i); k != qNone {
		j := i + size
		for j < len(s) {
			c := s[j]
			if c == '\\' {
				if _, ok := p.escapedKeyEnd(j+1, k); ok {
					return true // {"a\": 1}
				}
				j += 2
				continue
			}
			if c == '\n' {
				return false
			}
			if c == '"' || c == '\'' || c == '`' || c >= 0xC2 {
				if q, n := quoteAt(s, j); q != qNone && closes(k, q) {
					j += n
					break
				}
			}
			j++
		}
		j = gapAt(s, j).end
		return j < len(s) && s[j] == ':'
	}
	j := i
	for j < len(s) && (isWordByte(s[j]) || s[j] == '-') {
		j++
	}
	if j == i {
		return false
	}
	if j < len(s) && s[j] == '"' {
		j++ // a lone closing quote: b":1
	}
	j = gapAt(s, j).end
	return j < len(s) && s[j] == ':'
}

// escapedKeyEnd reports whether the quote at i, after a backslash, closes
// the key opened by a quote of kind open, and returns the index after it. It
// does when a colon follows it and no later quote on the line closes the key
// before a colon: {"a\": 1} ends there and the backslash is text, while
// {"a\": b": 1} keeps its escaped quote.
func (p *parser) escapedKeyEnd(i int, open quote) (int, bool) {
	k, size := quoteAt(p.in[:p.n], i)
	if !closes(open, k) || !p.fitsAfter(i+size, ctxKey) {
		return 0, false
	}
	end, ok := p.quotedEnd(i, k, size)
	return i + size, !ok || !p.fitsAfter(end, ctxKey)
}

// keyCut reports whether a key cut short by the end of the input starts at
// i: {"a": "x", "b or {"a": "x", "b" at the end is a next member, so the quote
// before the comma closed "x". The key is quoted and not closed on its line,
// or closed with only whitespace after it, or a name running to the end.
func (p *parser) keyCut(i int) bool {
	s := p.in[:p.n]
	if k, size := quoteAt(s, i); k != qNone {
		end, ok := p.quotedEnd(i, k, size)
		if !ok {
			return !strings.Contains(s[i:], "\n")
		}
		return gapAt(s, end).end >= len(s)
	}
	j := i // i < len(s): the caller checked
	for j < len(s) && (isWordByte(s[j]) || s[j] == '-') {
		j++
	}
	return j >= len(s)
}

// concatenate joins "a" + "b" into "ab" after a string was written in the
// context ctx.
func (p *parser) concatenate(ctx context) bool {
	for {
		g := gapAt(p.in[:p.n], p.pos)
		if g.end >= p.n || p.in[g.end] != '+' {
			return true
		}
		h := gapAt(p.in[:p.n], g.end+1)
		k, size := quoteAt(p.in, h.end)
		if h.end >= p.n || k == qNone {
			return true
		}
		p.used |= fixConcatenation
		p.out = p.out[:len(p.out)-1] // the closing quote
		p.pos = h.end
		mark := len(p.out)
		if !p.parseStringOnly(ctx, k, size) {
			return false
		}
		p.out = append(p.out[:mark], p.out[mark+1:]...) // the opening quote
	}
}

// parseEscapedString parses a string written with escaped quotes, as in
// stringified JSON: \"key\" (or \'key\'), where \\" stands for a quote inside.
func (p *parser) parseEscapedString() bool {
	q := p.in[p.pos+1]
	s := p.in[:p.n]
	i := p.pos + 2
	var content []byte
	closed := false
	for i < len(s) && !closed {
		switch {
		case s[i] == '\\' && i+2 < len(s) && s[i+1] == '\\' && s[i+2] == q:
			content = append(content, q)
			i += 3
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == q:
			i += 2
			closed = true
		case s[i] == q:
			i++
			closed = true
		case s[i] == '\\' && i+1 == len(s):
			i++
		default:
			content = append(content, s[i])
			i++
		}
	}
	if !closed {
		p.used |= fixCloseString
	}
	p.used |= fixInnerQuotes
	p.writeBare(string(content))
	p.pos = i
	return true
}

// writeBare writes s as a JSON string, escaping every quote, backslash and
// control character.
func (p *parser) writeBare(s string) {
	p.out = append(p.out, '"')
	for i := 0; i < len(s); i++ {
		p.writeEscapedByte(s[i])
	}
	p.out = append(p.out, '"')
}

// writeEscapedByte writes one byte of string content, escaping it if needed.
func (p *parser) writeEscapedByte(c byte) {
	switch c {
	case '"':
		p.out = append(p.out, '\\', '"')
	case '\\':
		p.out = append(p.out, '\\', '\\')
	case '\n':
		p.out = append(p.out, '\\', 'n')
	case '\r':
		p.out = append(p.out, '\\', 'r')
	case '\t':
		p.out = append(p.out, '\\', 't')
	case '\b':
		p.out = append(p.out, '\\', 'b')
	case '\f':
		p.out = append(p.out, '\\', 'f')
	default:
		if c < 0x20 {
			const hex = "0123456789abcdef"
			p.out = append(p.out, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			return
		}
		p.out = append(p.out, c)
	}
}

// literalBackslashes reports whether the backslashes of a string's content are
// literal text rather than escapes, as in a path: the content starts with a
// drive letter (C:\), or holds an escape JSON does not know (\U, \d, …) and
// two or more backslashes each followed by a name of two characters or more
// (\documents\data). Elsewhere an unknown escape is a slip: \q gives q.
func literalBackslashes(s string) bool {
	if len(s) >= 3 && isLetter(s[0]) && s[1] == ':' && s[2] == '\\' {
		return true
	}
	unknown, names := false, 0
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		switch s[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't', 'u', '\'', '\n', '\r':
		default:
			unknown = true
		}
		if i+2 < len(s) && isWordByte(s[i+1]) && isWordByte(s[i+2]) {
			names++
		} else if i+3 < len(s) && s[i+1] == '\\' && isWordByte(s[i+2]) && isWordByte(s[i+3]) {
			names++ // \\server
		}
		if s[i+1] == '\\' || s[i+1] == '"' {
			i++
		}
	}
	return unknown && names >= 2
}

// writeString writes the content of a quoted string (without its quotes) as a
// JSON string; how says how scanString found its end. offset locates the
// content in the input for messages.
func (p *parser) writeString(s string, open quote, how stringEnd, offset int) bool {
	if how == endCut {
		// A string cut off keeps its line breaks, not the spaces after them.
		s = dropPartialEscape(s)
		s = strings.TrimRight(s, " \t")
	}
	if how == endQuote {
		// "name\n": a line break just before the closing quote is dropped.
		if n := len(s); n > 0 && (s[n-1] == '\n' || s[n-1] == '\r') {
			p.used |= fixEscapeControlChars
			for n > 0 && (s[n-1] == '\n' || s[n-1] == '\r') {
				n--
			}
			s = s[:n]
		}
	}
	if how != endQuote && strings.HasSuffix(s, "+") {
		// "hello + without its closing quote, where a concatenation was meant.
		s = strings.TrimRight(s[:len(s)-1], " \t\r\n")
	}
	// literal says that backslashes are text; one is reported only where it
	// is written as \\ and the input did not already escape it.
	literal := p.raw || literalBackslashes(s)
	p.out = append(p.out, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			if open == qDouble {
				p.used |= fixInnerQuotes
			}
			p.out = append(p.out, '\\', '"')
		case c < 0x20:
			switch c {
			case '\n', '\r', '\t', '\b', '\f':
				p.used |= fixEscapeControlChars
				p.writeEscapedByte(c)
			default:
				return p.fail(offset+i, "a control character must be escaped as \\u00XX inside a string; found one")
			}
		case c != '\\':
			p.out = append(p.out, c)
		case i+1 >= len(s):
			p.keepBackslash()
		default:
			switch e := s[i+1]; e {
			case '"', '\\':
				p.out = append(p.out, '\\', e)
				i++
			case '\'':
				p.used |= fixSingleQuotes
				p.out = append(p.out, '\'')
				i++
			case '\n', '\r':
				p.used |= fixEscapeControlChars
				p.writeEscapedByte(e)
				i++
			case 'u':
				switch {
				case literal:
					p.keepBackslash()
				case i+5 < len(s) && isHex(s[i+2]) && isHex(s[i+3]) && isHex(s[i+4]) && isHex(s[i+5]):
					p.out = append(p.out, s[i:i+6]...)
					i += 5
				default:
					return p.fail(offset+i, "invalid \\u escape: \\u must be followed by four hex digits")
				}
			case '/', 'b', 'f', 'n', 'r', 't':
				if literal {
					p.keepBackslash()
				} else {
					p.out = append(p.out, '\\', e)
					i++
				}
			default:
				switch {
				case literal:
					p.keepBackslash()
				case e == '0' && (i+2 >= len(s) || !isDigit(s[i+2])):
					// \0: the NUL character, as in JavaScript and Python.
					p.used |= fixEscapeBackslashes
					p.out = append(p.out, `\u0000`...)
					i++
				default:
					// \q: the backslash is dropped, as other repairers do.
					p.used |= fixEscapeBackslashes
				}
			}
		}
	}
	p.out = append(p.out, '"')
	return true
}

// keepBackslash writes a backslash of a string's content that is text, not
// an escape, as \\.
func (p *parser) keepBackslash() {
	p.used |= fixEscapeBackslashes
	p.out = append(p.out, '\\', '\\')
}

// dropPartialEscape removes an escape cut by the end of the input: a final
// backslash or \u with fewer than four hex digits.
func dropPartialEscape(s string) string {
	i := strings.LastIndexByte(s, '\\')
	if i < 0 {
		return s
	}
	// Count the backslashes before i: an even run means s[i] escapes.
	j := i
	for j > 0 && s[j-1] == '\\' {
		j--
	}
	if (i-j)%2 == 1 {
		return s
	}
	tail := s[i+1:]
	if tail == "" {
		return s[:i]
	}
	if tail[0] == 'u' && len(tail) < 5 {
		for k := 1; k < len(tail); k++ {
			if !isHex(tail[k]) {
				return s
			}
		}
		return s[:i]
	}
	return s
}
