package repair

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds nesting so that no input exhausts the stack.
const maxDepth = 2000

// context says where a value stands; it decides which characters may follow a
// string's closing quote and which end a bare word.
type context uint8

const (
	ctxTop context = iota
	ctxArray
	ctxValue // an object member's value
	ctxKey
	ctxCall // the argument of a function call
)

// parser is one repairing pass over the input: a recursive-descent parser that
// writes valid JSON to out and records in used each fix it had to apply. Every
// fix applies only where strict parsing fails.
type parser struct {
	in    string
	n     int // end of the text to parse (before a closing code fence)
	pos   int
	out   []byte
	used  fix
	stack []byte // open containers: '{' or '['
	err   *Error
	// strayQuote is the offset of a quote to skip when a value starts there, or
	// 0 for none (a stray quote follows a string's opening quote, so it is never
	// at offset 0).
	strayQuote int
	// calls counts the function calls whose argument is being parsed.
	calls int
	// notCalls holds the end of each name found not to start a call, so that
	// none is tried twice.
	notCalls map[int]bool
}

// fail records the first refusal and returns false.
func (p *parser) fail(offset int, problem string) bool {
	if p.err == nil {
		p.err = newError(p.in, offset, problem, p.used)
	}
	return false
}

// failHere refuses at the current position, naming what is there.
func (p *parser) failHere() bool { return p.fail(p.pos, describe(p.in[:p.n], p.pos)) }

// inside reports whether a container of kind c is open.
func (p *parser) inside(c byte) bool {
	for _, s := range p.stack {
		if s == c {
			return true
		}
	}
	return false
}

// parseDocument parses the whole input: optional prose and code fence, one value
// or several, and what may trail it.
func (p *parser) parseDocument() bool {
	if strings.HasPrefix(p.in, "\uFEFF") {
		p.pos = 3
		p.used |= fixStripBOM
	}
	p.skip()
	start := p.pos
	p.stripLeadingProse()
	fenced := p.openFence()
	if fenced || p.pos != start {
		p.out = p.out[:0]
	}
	p.skip()
	if p.pos >= p.n {
		if !fenced {
			return p.fail(p.pos, "the input holds no JSON value")
		}
		return p.fail(p.pos, "the code block holds no JSON value")
	}
	first := len(p.out)
	startPos := p.pos
	if !p.parseValue(ctxTop) {
		return false
	}
	container := p.in[startPos] == '{' || p.in[startPos] == '['
	afterValue := len(p.out)
	multi := false
	pending := false
	for {
		before := p.pos
		g := p.skip()
		if p.pos >= p.n {
			break
		}
		c := p.in[p.pos]
		switch {
		case c == ',':
			p.pos++
			if gapAt(p.in[:p.n], p.pos).end >= p.n {
				p.used |= fixTrailingComma
				continue
			}
			pending = true
			continue
		case p.at(p.pos, "```"):
			p.used |= fixStripProse
			p.pos = p.n
			continue
		case c == ';' && p.restIsSpace(p.pos+1):
			p.used |= fixTrim
			p.pos = p.n
			continue
		case (c == '}' || c == ']') && p.restIsClosers(p.pos):
			p.used |= fixTrim
			p.pos = p.n
			continue
		case container && p.pos > before && !pending && !multi && isLetter(c) && !p.startsLiteral(p.pos):
			// Prose after a complete object or array.
			p.used |= fixStripProse
			p.pos = p.n
			continue
		case (pending || g.newline) && p.valueStarts(p.pos):
			if !multi {
				multi = true
				p.used |= fixMultipleValues
				p.out = insertByte(p.out, first, '[')
				afterValue++
			}
			p.out = insertByte(p.out, afterValue, ',')
			pending = false
			if !p.parseValue(ctxTop) {
				return false
			}
			afterValue = len(p.out)
			continue
		}
		if k, _ := quoteAt(p.in, startPos); k == qNone && p.out[first] == '"' && !multi {
			// Bare text, then more: prose around a fragment, not one JSON value.
			return p.fail(p.pos, describe(p.in[:p.n], p.pos)+" after the text "+
				strconv.Quote(clip(strings.TrimSpace(p.in[startPos:p.pos]), 40))+"; send only the JSON value, without prose")
		}
		return p.fail(p.pos, describe(p.in[:p.n], p.pos)+" after the JSON value")
	}
	if pending {
		p.used |= fixTrailingComma
	}
	if multi {
		p.out = append(p.out, ']')
	}
	return true
}

// restIsSpace reports whether only whitespace and comments follow i.
func (p *parser) restIsSpace(i int) bool { return gapAt(p.in[:p.n], i).end >= p.n }

// restIsClosers reports whether only closing brackets, whitespace and comments
// follow i.
func (p *parser) restIsClosers(i int) bool {
	for i < p.n {
		g := gapAt(p.in[:p.n], i)
		i = g.end
		if i < p.n && p.in[i] != '}' && p.in[i] != ']' {
			return false
		}
		i++
	}
	return true
}

// startsLiteral reports whether a JSON literal or Python literal starts at i.
func (p *parser) startsLiteral(i int) bool {
	w := p.word(i)
	_, ok := literal(w)
	return ok
}

// stripLeadingProse skips text before the value when it reads as prose that
// introduces it: "Here is the JSON: {…". The prose must not hold quotes,
// brackets or parentheses, and must end with a colon or a line break or be a
// sentence of three words or more.
func (p *parser) stripLeadingProse() {
	i := p.pos
	if i >= p.n || !isLetter(p.in[i]) || p.startsLiteral(i) {
		return
	}
	j := i
	for j < p.n {
		c := p.in[j]
		if c == '{' || c == '[' || p.at(j, "```") {
			break
		}
		if c == '"' || c == '\'' || c == '}' || c == ']' || c == '(' || c == ')' || c == '`' {
			return
		}
		if k, _ := quoteAt(p.in, j); k != qNone {
			return
		}
		j++
	}
	if j >= p.n {
		return
	}
	prose := strings.TrimRight(p.in[i:j], " \t\r\n")
	if !(strings.HasSuffix(prose, ":") || strings.ContainsRune(p.in[i:j], '\n') || strings.Count(prose, " ") >= 2) {
		return
	}
	p.pos = j
	p.used |= fixStripProse
}

// openFence skips a Markdown code fence opening at pos and limits parsing to the
// text before its closing fence. It reports whether a fence was found.
func (p *parser) openFence() bool {
	i := p.pos
	if i < p.n && (p.in[i] == '[' || p.in[i] == '{') {
		// [```json {…} ```]: brackets around the fence.
		i = gapAt(p.in[:p.n], i+1).end
	}
	if !p.at(i, "```") {
		return false
	}
	for i < p.n && p.in[i] == '`' {
		i++
	}
	for i < p.n && (isWordByte(p.in[i]) || p.in[i] == '-' || p.in[i] == '+') {
		i++
	}
	p.pos = i
	p.used |= fixStripProse
	if j := strings.LastIndex(p.in[i:], "```"); j >= 0 {
		end := i + j
		for end > i && p.in[end-1] == '`' {
			end--
		}
		p.n = end
	}
	return true
}

// insertByte inserts c at index i of b.
func insertByte(b []byte, i int, c byte) []byte {
	b = append(b, 0)
	copy(b[i+1:], b[i:])
	b[i] = c
	return b
}

// valueStarts reports whether a value can start at i.
func (p *parser) valueStarts(i int) bool {
	if i >= p.n {
		return false
	}
	c := p.in[i]
	if k, _ := quoteAt(p.in, i); k != qNone {
		return true
	}
	return c == '{' || c == '[' || c == '-' || isDigit(c) || isLetter(c) || c == '_' || c == '$'
}

// parseValue parses one value at pos (after whitespace) in the given context.
func (p *parser) parseValue(ctx context) bool {
	if p.pos >= p.n {
		return p.failHere()
	}
	if p.strayQuote > 0 && p.strayQuote == p.pos {
		_, size := quoteAt(p.in, p.pos)
		p.pos += size
		p.strayQuote = 0
		p.used |= fixInnerQuotes
		if p.pos >= p.n {
			return p.failHere()
		}
	}
	c := p.in[p.pos]
	switch {
	case c == '{':
		return p.parseObject()
	case c == '[':
		return p.parseArray()
	case c == '-' || c == '.' || isDigit(c):
		return p.parseNumber(ctx)
	case c == '/':
		return p.parseRegex()
	case c == '\\' && (p.at(p.pos+1, "\"") || p.at(p.pos+1, "'")):
		return p.parseEscapedString()
	}
	if k, size := quoteAt(p.in, p.pos); k != qNone {
		return p.parseString(ctx, k, size)
	}
	if isWordByte(c) && oddSpace(p.in, p.pos) == 0 {
		return p.parseWord(ctx)
	}
	return p.failHere()
}

// push opens a container, refusing nesting beyond maxDepth.
func (p *parser) push(c byte) bool {
	if len(p.stack) >= maxDepth {
		return p.fail(p.pos, "nesting too deep")
	}
	p.stack = append(p.stack, c)
	p.out = append(p.out, c)
	p.pos++
	return true
}

// closeContainer writes the closing bracket of the innermost container. At a
// mismatched bracket (or the end of the input) it closes anyway, consuming the
// bracket when no open container could claim it.
func (p *parser) closeContainer(open byte) {
	p.stack = p.stack[:len(p.stack)-1]
	closer := byte('}')
	other := byte(']')
	if open == '[' {
		closer, other = ']', '}'
	}
	p.out = append(p.out, closer)
	switch {
	case p.pos >= p.n:
		p.used |= fixCloseBrackets
	case p.in[p.pos] == closer:
		p.pos++
	case p.in[p.pos] == other:
		p.used |= fixCloseBrackets
		if !p.inside(open ^ '{' ^ '[') {
			p.pos++
		}
	default:
		p.used |= fixCloseBrackets
	}
}

// parseArray parses an array at pos.
func (p *parser) parseArray() bool {
	if !p.push('[') {
		return false
	}
	count, pending, commaAt := 0, false, 0
	for {
		p.skip()
		if p.pos >= p.n {
			break
		}
		c := p.in[p.pos]
		if c == ']' || c == '}' {
			break
		}
		if c == ',' {
			p.pos++
			if count > 0 && !pending {
				pending = true
			} else {
				p.used |= fixTrailingComma
			}
			continue
		}
		if p.at(p.pos, "...") {
			p.pos += 3
			p.used |= fixEllipsis
			continue
		}
		if p.at(p.pos, "```") {
			// A fence inside brackets: [```json {…} ```].
			break
		}
		if count > 0 {
			if !pending {
				if !p.valueStarts(p.pos) {
					return p.failHere()
				}
				p.used |= fixMissingComma
			}
			p.out = insertByte(p.out, commaAt, ',')
		}
		if !p.parseValue(ctxArray) {
			return false
		}
		count++
		pending = false
		commaAt = len(p.out)
	}
	if pending {
		p.used |= fixTrailingComma
	}
	p.closeContainer('[')
	return true
}

// parseObject parses an object at pos.
func (p *parser) parseObject() bool {
	if !p.push('{') {
		return false
	}
	count, pending, commaAt := 0, false, 0
	for {
		p.skip()
		if p.pos >= p.n {
			break
		}
		c := p.in[p.pos]
		if c == '}' || c == ']' {
			break
		}
		if c == ',' {
			p.pos++
			if count > 0 && !pending {
				pending = true
			} else {
				p.used |= fixTrailingComma
			}
			continue
		}
		if p.at(p.pos, "...") {
			p.pos += 3
			p.used |= fixEllipsis
			continue
		}
		if (c == '{' || c == '[') && len(p.stack) > 1 && p.stack[len(p.stack)-2] == '[' {
			// [{"a":1{"b":2}]: the object was not closed.
			break
		}
		if count > 0 {
			if !pending {
				p.used |= fixMissingComma
			}
			p.out = insertByte(p.out, commaAt, ',')
		}
		if !p.parseMember() {
			return false
		}
		count++
		pending = false
		commaAt = len(p.out)
	}
	if pending {
		p.used |= fixTrailingComma
	}
	p.closeContainer('{')
	return true
}

// parseMember parses key: value at pos.
func (p *parser) parseMember() bool {
	if !p.parseKey() {
		return false
	}
	p.skip()
	if p.pos >= p.n {
		p.out = append(p.out, ":null"...)
		p.used |= fixMissingValue
		return true
	}
	if p.in[p.pos] == ':' {
		p.out = append(p.out, ':')
		p.pos++
	} else if p.valueStarts(p.pos) {
		p.out = append(p.out, ':')
		p.used |= fixMissingColon
	} else {
		return p.fail(p.pos, describe(p.in[:p.n], p.pos)+" where ':' should follow the key")
	}
	p.skip()
	if p.pos >= p.n || p.in[p.pos] == ',' || p.in[p.pos] == '}' || p.in[p.pos] == ']' {
		p.out = append(p.out, "null"...)
		p.used |= fixMissingValue
		return true
	}
	return p.parseValue(ctxValue)
}

// parseKey parses a key, quoted or not, at pos.
func (p *parser) parseKey() bool {
	if k, size := quoteAt(p.in, p.pos); k != qNone {
		return p.parseString(ctxKey, k, size)
	}
	if p.at(p.pos, `\"`) {
		return p.parseEscapedString()
	}
	i := p.pos
	for i < p.n {
		c := p.in[i]
		if c == ':' || isSpace(c) || c == ',' || c == '}' || c == ']' || c == '{' || c == '[' || c == '/' {
			break
		}
		if k, _ := quoteAt(p.in, i); k != qNone || oddSpace(p.in, i) != 0 {
			break
		}
		i++
	}
	if i == p.pos {
		return p.fail(p.pos, describe(p.in[:p.n], p.pos)+" where a key should be")
	}
	p.used |= fixUnquotedKeys
	p.writeBare(p.in[p.pos:i])
	p.pos = i
	if p.pos < p.n && p.in[p.pos] == '"' {
		p.pos++ // a lone closing quote: {a":1}
	}
	return true
}

// clip shortens s to at most n bytes (on a rune boundary) for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
