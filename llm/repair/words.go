package repair

import "strings"

// This file parses what is not a string or container: numbers, literals, bare
// words, regular expressions and function-call wrappers.

// word returns the identifier-like word at i.
func (p *parser) word(i int) string {
	j := i
	for j < p.n && isWordByte(p.in[j]) && oddSpace(p.in, j) == 0 {
		if k, _ := quoteAt(p.in, j); k != qNone {
			break
		}
		j++
	}
	return p.in[i:j]
}

// literal maps a word to a JSON literal: exact JSON literals report ok with no
// fix; other spellings report the fix they need.
func literal(w string) (string, bool) {
	switch w {
	case "true", "false", "null":
		return w, true
	case "undefined":
		return "null", true
	}
	switch strings.ToLower(w) {
	case "true":
		return "true", true
	case "false":
		return "false", true
	case "null", "none":
		return "null", true
	}
	return "", false
}

// ends reports whether a number or literal may end at i in the context.
func (p *parser) ends(i int, ctx context) bool {
	if i >= p.n {
		return true
	}
	c := p.in[i]
	switch c {
	case ' ', '\t', '\n', '\r', ',', ']', '}', ';', '{', '[':
		return true
	case '/':
		// A comment ends it; 3/4 is text.
		return p.at(i+1, "/") || p.at(i+1, "*")
	case ':':
		return ctx == ctxKey
	case ')':
		// A call's end, or a stray ')' before a delimiter.
		if ctx == ctxCall || p.calls > 0 {
			return true
		}
		j := gapAt(p.in[:p.n], i+1).end
		return j >= p.n || p.in[j] == ',' || p.in[j] == '}' || p.in[j] == ']'
	}
	return oddSpace(p.in, i) != 0
}

// parseNumber parses a number at pos, completing a cut or sloppy one (2., .5,
// 1e, -); text that only starts like a number (0.0.1, 2024-10-18, 0789) is a bare
// string instead.
func (p *parser) parseNumber(ctx context) bool {
	s := p.in[:p.n]
	start := p.pos
	i := start
	mark := len(p.out)
	fixed := false
	if s[i] == '-' {
		p.out = append(p.out, '-')
		i++
	}
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	switch {
	case j == i:
		if j < len(s) && s[j] == '.' && j+1 < len(s) && isDigit(s[j+1]) || (j < len(s) && s[j] == '.' && p.ends(j+1, ctx)) || p.ends(j, ctx) {
			p.out = append(p.out, '0')
			fixed = true
		} else {
			p.out = p.out[:mark]
			return p.parseBare(ctx)
		}
	case j-i > 1 && s[i] == '0':
		p.out = p.out[:mark]
		return p.parseBare(ctx)
	default:
		p.out = append(p.out, s[i:j]...)
	}
	i = j
	if i < len(s) && s[i] == '.' {
		p.out = append(p.out, '.')
		i++
		j = i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == i {
			p.out = append(p.out, '0')
			fixed = true
		}
		p.out = append(p.out, s[i:j]...)
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		p.out = append(p.out, s[i])
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			p.out = append(p.out, s[i])
			i++
		}
		j = i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == i {
			p.out = append(p.out, '0')
			fixed = true
		}
		p.out = append(p.out, s[i:j]...)
		i = j
	}
	if !p.ends(i, ctx) {
		p.out = p.out[:mark]
		return p.parseBare(ctx)
	}
	if fixed {
		p.used |= fixNumbers
	}
	p.pos = i
	return true
}

// parseWord parses a literal, a function call or a bare string at pos.
func (p *parser) parseWord(ctx context) bool {
	w := p.word(p.pos)
	end := p.pos + len(w)
	if p.callStarts(end) {
		if called, ok := p.parseCall(end); called || !ok {
			return ok
		}
	}
	if ctx != ctxKey {
		if lit, ok := cutLiteral(w); ok && p.restIsSpace(end) {
			// {"ok": tru: a literal cut off by the end of the input.
			p.used |= fixCloseLiteral
			p.out = append(p.out, lit...)
			p.pos = end
			return true
		}
		if k, size := p.prefixedQuote(w, end, ctx); k != qNone {
			// h"that", r"\d": a stray prefix joined to a quoted string.
			p.used |= fixTrim
			p.pos = end
			p.raw = w == "r" || w == "R"
			ok := p.parseString(ctx, k, size)
			p.raw = false
			return ok
		}
	}
	if lit, ok := literal(w); ok && p.ends(end, ctx) {
		switch {
		case lit == w:
		case w == "undefined":
			p.used |= fixJSLiterals
		default:
			p.used |= fixPythonLiterals
		}
		p.out = append(p.out, lit...)
		p.pos = end
		return true
	}
	return p.parseBare(ctx)
}

// cutLiteral maps a word that a cut-off literal leaves to the literal: a
// proper prefix of true, false or null, or of Python's True, False or None
// (from "Non" on, so that "No" stays a word).
func cutLiteral(w string) (string, bool) {
	if w == "" {
		return "", false
	}
	for _, l := range [...]struct{ word, lit string }{
		{"true", "true"}, {"false", "false"}, {"null", "null"},
		{"True", "true"}, {"False", "false"}, {"None", "null"},
	} {
		if len(w) < len(l.word) && strings.HasPrefix(l.word, w) && (l.word != "None" || len(w) >= 3) {
			return l.lit, true
		}
	}
	return "", false
}

// prefixedQuote reports the quote of a string that the word w, ending at end,
// is joined to with no space (h"that", r"\d+"): a prefix of one or two
// letters before a double or single quote that closes on its line, where
// what follows fits the context. It returns qNone otherwise.
func (p *parser) prefixedQuote(w string, end int, ctx context) (quote, int) {
	if len(w) == 0 || len(w) > 2 || !isLetter(w[0]) || !isLetter(w[len(w)-1]) {
		return qNone, 0
	}
	k, size := quoteAt(p.in[:p.n], end)
	if k != qDouble && k != qSingle {
		return qNone, 0
	}
	if j := gapAt(p.in[:p.n], end+size).end; j >= p.n || p.in[j] == ',' || isCloser(p.in[j]) {
		// [a","b"], [a",b"]: the quote closes a string whose opening quote
		// is missing.
		return qNone, 0
	}
	if e, ok := p.quotedEnd(end, k, size); !ok || e < 0 || p.endsString(e, ctx) != fitStrong {
		return qNone, 0
	}
	return k, size
}

// maxCallDepth bounds function calls nested in the arguments of calls: deeper,
// name( is text.
const maxCallDepth = 8

// callStarts reports whether the name ending at i is followed by the '(' of a
// call: directly, name(…), or after whitespace or comments when an object or
// array follows it, callback ({…}) as JSONP is written. A word before a
// parenthesis, as in see (below), is text.
func (p *parser) callStarts(i int) bool {
	s := p.in[:p.n]
	if i < len(s) && s[i] == '(' {
		return true
	}
	j := gapAt(s, i).end
	if j >= len(s) || s[j] != '(' {
		return false
	}
	k := gapAt(s, j+1).end
	return k < len(s) && (s[k] == '{' || s[k] == '[')
}

// parseCall unwraps callback(value) or ObjectId("…"); i is the end of the name,
// which callStarts accepted. It is a call only when a ')' closes the argument
// (or the input ends there). When the argument is an object or array, anything
// else is refused; when it is not, parseCall restores the parser, notes i as no
// call and reports called false, so that the text is read as a bare string:
// f(1 2). ok is false on a refusal.
func (p *parser) parseCall(i int) (called, ok bool) {
	if p.calls >= maxCallDepth || p.notCalls[i] {
		return false, true
	}
	pos, out, used, stray := p.pos, len(p.out), p.used, p.strayQuote
	p.pos = i
	p.skipQuiet()
	p.pos++ // the '('
	p.skipQuiet()
	container := p.pos < p.n && (p.in[p.pos] == '{' || p.in[p.pos] == '[')
	if p.bareArgument() {
		// foo(bar): text with parentheses, not a wrapper around a value.
		p.pos, p.strayQuote = pos, stray
		if p.notCalls == nil {
			p.notCalls = map[int]bool{}
		}
		p.notCalls[i] = true
		return false, true
	}
	p.calls++
	ok = p.parseValue(ctxCall)
	p.calls--
	if !ok {
		return false, false
	}
	p.skipQuiet()
	switch {
	case p.pos >= p.n:
	case p.in[p.pos] == ')':
		p.pos++
		if g := gapAt(p.in[:p.n], p.pos); g.end < p.n && p.in[g.end] == ';' {
			p.pos = g.end + 1
		}
	case container:
		p.used |= fixFunctionCall
		return false, p.fail(p.pos, describe(p.in[:p.n], p.pos)+" where ')' should close the call")
	default:
		p.pos, p.out, p.used, p.strayQuote = pos, p.out[:out], used, stray
		if p.notCalls == nil {
			p.notCalls = map[int]bool{}
		}
		p.notCalls[i] = true
		return false, true
	}
	p.used |= fixFunctionCall
	return true, true
}

// bareArgument reports whether a call's argument at pos is a bare word that
// is neither a literal nor a call itself: foo(bar) is text, not a wrapper.
func (p *parser) bareArgument() bool {
	if p.pos >= p.n || !isWordByte(p.in[p.pos]) || isDigit(p.in[p.pos]) || oddSpace(p.in, p.pos) != 0 {
		return false
	}
	w := p.word(p.pos)
	if _, ok := literal(w); ok || w == "" {
		return false
	}
	return !p.callStarts(p.pos + len(w))
}

// skipQuiet skips whitespace, comments and odd spaces without copying them,
// recording the fixes as skip does.
func (p *parser) skipQuiet() {
	g := gapAt(p.in[:p.n], p.pos)
	if g.comments {
		p.used |= fixComments
	}
	if g.odd {
		p.used |= fixStripBOM
	}
	p.pos = g.end
}

// parseBare parses unquoted text as a string: up to a comma, bracket, quote or
// line break (and a colon for a key), without trailing spaces.
func (p *parser) parseBare(ctx context) bool {
	s := p.in[:p.n]
	i := p.pos
	for i < len(s) {
		c := s[i]
		if (c == '{' || c == '[') && i > p.pos && (ctx == ctxValue || ctx == ctxArray) {
			// Hello {name}!, a[0]: brackets closed within the text.
			if e := bareGroupEnd(s, i); e > 0 {
				i = e
				continue
			}
		}
		if c == '(' && i > p.pos && (ctx == ctxValue || ctx == ctxArray) {
			// f(x, y): parentheses closed within the text, commas and all.
			if e := parenGroupEnd(s, i); e > 0 {
				i = e
				continue
			}
		}
		if c == ',' || c == ']' || c == '}' || c == '{' || c == '[' || c == '\n' || c == '\r' {
			break
		}
		if c == ')' && ctx == ctxCall {
			break
		}
		if c == '/' && i+1 < len(s) && s[i+1] == '*' {
			break
		}
		if k, _ := quoteAt(s, i); k != qNone && (k == qDouble || k == qSingle || k == qCurlyDouble) {
			break
		}
		i++
	}
	end := trimSpaceEnd(s, p.pos, i)
	if end == p.pos {
		return p.failHere()
	}
	p.used |= fixUnquotedStrings
	p.writeBare(s[p.pos:end])
	p.pos = i
	if i < len(s) && i == end && (s[i] == '"' || s[i] == '\'') {
		p.pos++ // a lone closing quote: [a","b"]
	}
	return true
}

// bareGroupEnd returns the index after the bracket that closes the one at
// s[i] in unquoted text, on its line and with no quote, comma or colon
// between; -1 when there is none.
func bareGroupEnd(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		case '\n', '\r', '"', '\'', ',', ':':
			return -1
		}
	}
	return -1
}

// parenGroupEnd returns the index after the ')' that closes the '(' at s[i]
// in unquoted text, on its line and with no quote or bracket between; -1
// when there is none.
func parenGroupEnd(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return j + 1
			}
		case '\n', '\r', '"', '\'', '{', '}', '[', ']':
			return -1
		}
	}
	return -1
}

// parseRegex parses a JavaScript regular expression /…/flags as a string.
func (p *parser) parseRegex() bool {
	s := p.in[:p.n]
	i := p.pos + 1
	inClass := false
	for i < len(s) {
		c := s[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '[' {
			inClass = true
		} else if c == ']' {
			inClass = false
		} else if c == '/' && !inClass {
			break
		} else if c == '\n' {
			return p.failHere()
		}
		i++
	}
	if i >= len(s) {
		return p.failHere()
	}
	i++
	for i < len(s) && isLetter(s[i]) {
		i++
	}
	p.used |= fixUnquotedStrings
	p.writeBare(s[p.pos:i])
	p.pos = i
	return true
}
