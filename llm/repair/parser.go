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
	// raw says the string being parsed had Python's r prefix: its
	// backslashes are text.
	raw bool
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
	if p.bareMembersStart() {
		// name: John\nage: 30: an object's members without its braces.
		p.used |= fixMissingBraces
		p.stack = append(p.stack, '{')
		p.out = append(p.out, '{')
		if !p.members(0, false, 0) {
			return false
		}
		p.skip()
		if p.pos < p.n {
			return p.fail(p.pos, describe(p.in[:p.n], p.pos)+" after the members")
		}
		return true
	}
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
		case c == ',' && !multi && p.out[afterValue-1] == '}' && p.keyStarts(gapAt(p.in[:p.n], p.pos+1).end):
			// {"a": 1}, "b": 2}: the object was closed too early.
			p.pos++
			if !p.reopenObject(afterValue) {
				return false
			}
			afterValue = len(p.out)
			continue
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
		case container && p.pos > before && !pending && !multi && !g.newline && c != '{' && c != '[':
			// [1] 2: junk after a complete object or array, on its line.
			p.used |= fixTrim
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

// bareMembersStart reports whether the input at pos starts with an object's
// first member written without the object's braces: a key (quoted, or a name
// followed by a space after its colon) and a value on the same line. A
// name's value must not open a bracket or a fence: "Answer: {…" is prose
// before the value.
func (p *parser) bareMembersStart() bool {
	s := p.in[:p.n]
	i := p.pos
	if i >= len(s) {
		return false
	}
	quoted := false
	if k, size := quoteAt(s, i); k == qDouble || k == qSingle {
		e, ok := p.quotedEnd(i, k, size)
		if !ok || e < 0 {
			return false
		}
		i, quoted = e, true
	} else {
		if !isLetter(s[i]) && s[i] != '_' {
			return false
		}
		for i < len(s) && (isWordByte(s[i]) && s[i] < 0x80 || s[i] == '-') {
			i++
		}
	}
	keyEnd := i
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i >= len(s) || s[i] != ':' {
		return false
	}
	i++
	if !quoted && (i >= len(s) || (s[i] != ' ' && s[i] != '\t')) {
		return false
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i >= len(s) || s[i] == '\n' || s[i] == '\r' {
		return false
	}
	if quoted {
		return true
	}
	if _, ok := literal(s[p.pos:keyEnd]); ok {
		return false
	}
	return s[i] != '{' && s[i] != '[' && s[i] != '`'
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
// introduces it: "Here's the JSON: {…", "**Answer**: {…", bullets, "(1) …".
// The prose must not hold double quotes, closing brackets or backticks (an
// apostrophe only inside a word), must not end with '(', and must end with a
// colon or a line break or be a sentence of three words or more.
func (p *parser) stripLeadingProse() {
	i := p.pos
	if i >= p.n || !p.proseStarts(i) || p.startsLiteral(i) {
		return
	}
	j := i
	for j < p.n {
		c := p.in[j]
		if c == '{' || c == '[' || p.at(j, "```") {
			break
		}
		if c == '"' || c == '}' || c == ']' || c == '`' {
			return
		}
		if k, size := quoteAt(p.in, j); k != qNone {
			// An apostrophe inside a word: Here's, I’ll.
			if (k == qSingle || k == qCurlySingle) && j > i && isLetter(p.in[j-1]) && j+size < p.n && isLetter(p.in[j+size]) {
				j += size
				continue
			}
			return
		}
		j++
	}
	if j >= p.n {
		return
	}
	prose := strings.TrimRight(p.in[i:j], " \t\r\n")
	if strings.HasSuffix(prose, "(") {
		return
	}
	if !(strings.HasSuffix(prose, ":") || strings.ContainsRune(p.in[i:j], '\n') || strings.Count(prose, " ") >= 2) {
		return
	}
	p.pos = j
	p.used |= fixStripProse
}

// proseStarts reports whether prose may start at i: a letter, Markdown
// emphasis, heading or quote (*, #, "> "), a bullet ("- ", "• ") or a
// numbered item ("(1)", "1. First").
func (p *parser) proseStarts(i int) bool {
	c := p.in[i]
	switch {
	case isLetter(c), c == '*', c == '#':
		return true
	case p.at(i, "- "), p.at(i, "• "), p.at(i, "> "):
		return true
	case isDigit(c):
		// A numbered item: "1. First", "2) Then".
		j := i
		for j < p.n && j-i < 3 && isDigit(p.in[j]) {
			j++
		}
		return (p.at(j, ". ") || p.at(j, ") ")) && j+2 < p.n && isLetter(p.in[j+2])
	case c == '(':
		j := i + 1
		for j < p.n && j-i <= 3 && (isLetter(p.in[j]) || isDigit(p.in[j])) {
			j++
		}
		return j > i+1 && p.at(j, ")")
	}
	return false
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
		return p.parseArray('[')
	case c == '(':
		return p.parseArray(kindTuple)
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

// Container kinds on the parser's stack, by the bracket that opened them in
// the input: '{' and '[' as in JSON, '(' a Python tuple and 's' a set-like
// {'a', 'b'}, both written as arrays.
const (
	kindTuple = '('
	kindSet   = 's'
)

// push opens a container of kind k, writing its JSON opening bracket,
// refusing nesting beyond maxDepth.
func (p *parser) push(k byte) bool {
	if len(p.stack) >= maxDepth {
		return p.fail(p.pos, "nesting too deep")
	}
	p.stack = append(p.stack, k)
	if k == '{' {
		p.out = append(p.out, '{')
	} else {
		p.out = append(p.out, '[')
	}
	p.pos++
	return true
}

// closerOf returns the input bracket that closes a container of kind k and
// the JSON bracket written for it.
func closerOf(k byte) (in, out byte) {
	switch k {
	case '{':
		return '}', '}'
	case kindTuple:
		return ')', ']'
	case kindSet:
		return '}', ']'
	}
	return ']', ']'
}

// isCloser reports a closing bracket of the input.
func isCloser(c byte) bool { return c == '}' || c == ']' || c == ')' }

// closeContainer writes the closing bracket of the innermost container. At a
// mismatched bracket (or the end of the input) it closes anyway, consuming the
// bracket when no open container could claim it.
func (p *parser) closeContainer() {
	k := p.stack[len(p.stack)-1]
	p.stack = p.stack[:len(p.stack)-1]
	closer, out := closerOf(k)
	p.out = append(p.out, out)
	switch {
	case p.pos >= p.n:
		p.used |= fixCloseBrackets
	case p.in[p.pos] == closer:
		p.pos++
	case isCloser(p.in[p.pos]):
		p.used |= fixCloseBrackets
		if !p.claims(p.in[p.pos]) {
			p.pos++
		}
	default:
		p.used |= fixCloseBrackets
	}
}

// claims reports whether an open container (or call) could be closed by the
// closing bracket c.
func (p *parser) claims(c byte) bool {
	if c == ')' && p.calls > 0 {
		return true
	}
	for _, k := range p.stack {
		if in, _ := closerOf(k); in == c {
			return true
		}
	}
	return false
}

// strayParen handles a ')' where an item, a comma or a closing bracket of a
// container that a ')' does not close should be: dropped, or taken as the
// container's closer at the end of the input. It reports whether the loop
// should go on.
func (p *parser) strayParen() bool {
	p.pos++
	p.used |= fixCloseBrackets
	return gapAt(p.in[:p.n], p.pos).end < p.n
}

// onlyQuoteLeft reports whether the rest of the input is a lone opening quote:
// the input was cut right after it.
func (p *parser) onlyQuoteLeft() bool {
	_, size := quoteAt(p.in, p.pos)
	return size > 0 && p.pos+size == p.n
}

// parseArray parses an array (or a tuple) at pos.
func (p *parser) parseArray(k byte) bool {
	if !p.push(k) {
		return false
	}
	if k == kindTuple {
		p.used |= fixPythonLiterals
	}
	return p.items(0, false, 0)
}

// items parses the items of the innermost container, an array, from pos on:
// count items were written, pending says a comma was read after the last, and
// commaAt is where in out a comma after the last goes.
func (p *parser) items(count int, pending bool, commaAt int) bool {
	closer, _ := closerOf(p.stack[len(p.stack)-1])
	for {
		p.skip()
		if p.pos >= p.n {
			break
		}
		c := p.in[p.pos]
		if c == ']' || c == '}' || (c == ')' && (closer == ')' || p.calls > 0)) {
			break
		}
		if c == ')' {
			if !p.strayParen() {
				break
			}
			continue
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
		if p.onlyQuoteLeft() {
			p.pos = p.n
			p.used |= fixCloseString
			break
		}
		if count > 0 && !pending && !p.valueStarts(p.pos) {
			return p.failHere()
		}
		if p.keyInArray() {
			// key: value inside an array: members of the object before it,
			// when one was closed too early, or else of an object of their own.
			if count > 0 && p.out[commaAt-1] == '}' {
				if !p.reopenObject(commaAt) {
					return false
				}
				commaAt = len(p.out)
				pending = false
				continue
			}
			if count > 0 {
				if !pending {
					p.used |= fixMissingComma
				}
				p.out = insertByte(p.out, commaAt, ',')
			}
			p.used |= fixCloseBrackets
			p.stack = append(p.stack, '{')
			p.out = append(p.out, '{')
			if !p.members(0, false, 0) {
				return false
			}
			count++
			pending = false
			commaAt = len(p.out)
			continue
		}
		if count > 0 {
			if !pending {
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
	p.closeContainer()
	return true
}

// keyInArray reports whether a key followed by a colon and a value starts at
// pos, inside an array; a word before :// is a URL, not a key.
func (p *parser) keyInArray() bool {
	if c := p.in[p.pos]; c == '{' || c == '[' || c == '-' || isDigit(c) || !p.keyStarts(p.pos) {
		return false
	}
	s := p.in[:p.n]
	c := strings.IndexByte(s[p.pos:], ':') + p.pos + 1
	return !p.at(c, "//")
}

// reopenObject continues the object that ends at out[end-1] (its '}'), closed
// too early: {"a": 1}, "b": 2} is one object. pos is at the next member; the
// comma before it was read.
func (p *parser) reopenObject(end int) bool {
	p.used |= fixCloseBrackets
	p.out = append(p.out[:end-1], p.out[end:]...)
	if len(p.stack) >= maxDepth {
		return p.fail(p.pos, "nesting too deep")
	}
	p.stack = append(p.stack, '{')
	return p.members(1, true, end-1)
}

// parseObject parses an object at pos.
func (p *parser) parseObject() bool {
	if !p.push('{') {
		return false
	}
	return p.members(0, false, 0)
}

// members parses the members of the innermost container, an object, from pos
// on; count, pending and commaAt are as for items.
func (p *parser) members(count int, pending bool, commaAt int) bool {
	open := len(p.out) - 1 // where the object's '{' is, when count is 0
	lastValue := 0         // where in out the last member's value starts
	for {
		p.skip()
		if p.pos >= p.n {
			break
		}
		c := p.in[p.pos]
		if c == '}' || c == ']' || (c == ')' && p.calls > 0) {
			break
		}
		if c == ')' {
			if !p.strayParen() {
				break
			}
			continue
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
		if p.onlyQuoteLeft() {
			p.pos = p.n
			p.used |= fixCloseString
			break
		}
		if count == 0 && p.setSignal() && p.setStarts() {
			// {'a', 'b'}: a set, written as an array.
			p.used |= fixPythonLiterals
			p.out[open] = '['
			p.stack[len(p.stack)-1] = kindSet
			return p.items(0, false, 0)
		}
		if count > 0 && pending && lastValue > 0 && p.bracketBeforeColon() && p.arrayMissingOpen(p.pos) {
			// {"tags": "a", "b"]}: the value's '[' is missing.
			p.used |= fixCloseBrackets
			p.out = insertByte(p.out, lastValue, '[')
			if len(p.stack) >= maxDepth {
				return p.fail(p.pos, "nesting too deep")
			}
			p.stack = append(p.stack, '[')
			if !p.items(1, true, commaAt+1) {
				return false
			}
			pending = false
			commaAt = len(p.out)
			continue
		}
		if count > 0 {
			if !pending {
				p.used |= fixMissingComma
			}
			p.out = insertByte(p.out, commaAt, ',')
		}
		var ok bool
		if lastValue, ok = p.parseMember(); !ok {
			return false
		}
		count++
		pending = false
		commaAt = len(p.out)
	}
	if pending {
		p.used |= fixTrailingComma
	}
	p.closeContainer()
	return true
}

// setSignal is setStarts' cheap first test: a comma or '}' follows the first
// key or word before any colon on its line.
func (p *parser) setSignal() bool {
	s := p.in[:p.n]
	for j := p.pos; j < len(s); j++ {
		switch s[j] {
		case ':', '\n':
			return false
		case ',', '}':
			return true
		}
	}
	return false
}

// setStarts reports whether the object at pos is set-like, {'a', 'b'}: its
// first item is a value followed by a comma or the closing brace, not a colon.
func (p *parser) setStarts() bool {
	s := p.in[:p.n]
	i := p.pos
	if k, size := quoteAt(s, i); k != qNone {
		if p.keyStarts(i) {
			// {"a, b\": c"}: the key ends at \" before its colon, as
			// keyInArray would find in the set's items: an object.
			return false
		}
		end, _ := p.quotedEnd(i, k, size)
		if end < 0 {
			return false
		}
		i = end
	} else {
		for i < len(s) && (isWordByte(s[i]) || s[i] == '-' || s[i] == '.') {
			i++
		}
		if i == p.pos {
			return false
		}
	}
	j := gapAt(s, i).end
	if j < len(s) && s[j] == '}' {
		return true
	}
	if j >= len(s) || s[j] != ',' {
		return false
	}
	// {'a', …: the next item must be a value followed by a comma or '}' too.
	j = gapAt(s, j+1).end
	if k, size := quoteAt(s, j); k != qNone {
		end, ok := p.quotedEnd(j, k, size)
		if !ok {
			return false
		}
		j = end
	} else {
		i = j
		for j < len(s) && (isWordByte(s[j]) || s[j] == '-' || s[j] == '.') {
			j++
		}
		if j == i {
			return false
		}
	}
	j = gapAt(s, j).end
	return j < len(s) && (s[j] == ',' || s[j] == '}')
}

// quotedEnd returns the index after the quote that closes the one-line string
// opened at i, or -1.
func (p *parser) quotedEnd(i int, k quote, size int) (int, bool) {
	s := p.in[:p.n]
	for j := i + size; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
			continue
		case '\n':
			return -1, false
		}
		if q, n := quoteAt(s, j); q != qNone && closes(k, q) {
			return j + n, true
		}
	}
	return -1, false
}

// bracketBeforeColon is arrayMissingOpen's cheap first test: a ']' comes
// before any ':', '}' or line break.
func (p *parser) bracketBeforeColon() bool {
	s := p.in[:p.n]
	for j := p.pos; j < len(s); j++ {
		switch s[j] {
		case ':', '}', '\n':
			return false
		case ']':
			return true
		}
	}
	return false
}

// arrayMissingOpen reports whether the items at i, after a member's value
// and a comma, continue that value as an array whose '[' is missing: no key
// follows, and a ']' comes before any ':' or '}' and is followed by a comma
// or the object's '}'.
func (p *parser) arrayMissingOpen(i int) bool {
	if p.keyStarts(i) || !p.valueStarts(i) {
		return false
	}
	s := p.in[:p.n]
	for j := i; j < len(s); j++ {
		switch c := s[j]; c {
		case ']':
			k := gapAt(s, j+1).end
			return k < len(s) && (s[k] == ',' || s[k] == '}')
		case ':', '}', '{', '[':
			return false
		}
		if k, size := quoteAt(s, j); k != qNone {
			end, ok := p.quotedEnd(j, k, size)
			if !ok {
				return false
			}
			j = end - 1
		}
	}
	return false
}

// parseMember parses key: value at pos. valueAt is where in out the value
// starts.
func (p *parser) parseMember() (valueAt int, ok bool) {
	if !p.parseKey() {
		return 0, false
	}
	p.skip()
	if p.pos >= p.n {
		p.out = append(p.out, ":"...)
		p.used |= fixMissingValue
		return len(p.out), p.missingValue()
	}
	switch c := p.in[p.pos]; {
	case c == ':':
		p.out = append(p.out, ':')
		p.pos++
	case p.at(p.pos, "："):
		p.out = append(p.out, ':')
		p.pos += len("：")
		p.used |= fixCurlyQuotes
	case p.valueStarts(p.pos):
		p.out = append(p.out, ':')
		p.used |= fixMissingColon
	default:
		return 0, p.fail(p.pos, describe(p.in[:p.n], p.pos)+" where ':' should follow the key")
	}
	p.skip()
	valueAt = len(p.out)
	if p.pos >= p.n || p.in[p.pos] == ',' || p.in[p.pos] == '}' || p.in[p.pos] == ']' {
		p.used |= fixMissingValue
		return valueAt, p.missingValue()
	}
	return valueAt, p.parseValue(ctxValue)
}

// missingValue writes null for a key without a value.
func (p *parser) missingValue() bool {
	p.out = append(p.out, "null"...)
	return true
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
