package textcalls

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Envelopes written as calls in a programming-language syntax: LFM2/Olmo's
// pythonic lists and Gemma's call:name{...}.

// findPythonic: [f(a=1, b="x"), g()] inside <|tool_call_start|>...<|tool_call_end|>
// (LFM2) or <|python_start|>...<|python_end|> (Llama 4, the end token
// optional; inside the tokens one call may stand without the list's
// brackets), or as the whole message.
func findPythonic(s *source) found {
	var f found
	text := s.text
	for _, w := range [][2]string{{"<|tool_call_start|>", "<|tool_call_end|>"}, {"<|python_start|>", "<|python_end|>"}} {
		s.eachTag(w[0], w[1], func(i, body, limit, end int) {
			calls := pyCalls(text, body, limit)
			if b := skipSpace(text, body); calls == nil && strings.HasPrefix(text[b:], "[{") {
				// LFM2 asked for JSON: a JSON list of calls.
				vals, _ := s.parseJSONSeq(b, limit)
				for _, v := range vals {
					calls = append(calls, v.calls(false)...)
				}
			}
			for _, c := range calls {
				f.add(c, span{i, end})
			}
		})
	}
	if len(f.calls) > 0 {
		return f
	}
	start := s.messageStart()
	if start < len(text) && text[start] == '[' && s.allowed(start) {
		p := &pyParser{text: text, pos: start}
		calls := p.list()
		if len(calls) > 0 && strings.TrimSpace(text[p.pos:]) == "" {
			for _, c := range calls {
				f.add(c, span{start, len(text)})
			}
		}
	}
	return f
}

// pyCalls reads a body of text[body:limit] that is a pythonic list of calls,
// or one call without the list's brackets: f(a=1).
func pyCalls(text string, body, limit int) []rawCall {
	p := &pyParser{text: text[:limit], pos: skipSpace(text, body)}
	calls := p.list()
	if calls == nil {
		p.pos = skipSpace(text, body)
		if name, args, ok := p.call(); ok && isBlank(text[p.pos:limit]) {
			calls = []rawCall{{name: name, args: args}}
		}
	}
	return calls
}

// findOlmo3: OLMo 3's <function_calls> around Python-style calls, one a line,
// with Python or JSON literals: lookup(city='Oslo', days=None, strict=true).
// Every non-blank line of the block must be one call, or none is taken.
func findOlmo3(s *source) found {
	const open, close = "<function_calls>", "</function_calls>"
	var f found
	text := s.text
	s.eachTag(open, close, func(i, body, limit, end int) {
		var calls []rawCall
		for pos := body; pos < limit; {
			eol := limit
			if k := strings.IndexByte(text[pos:limit], '\n'); k >= 0 {
				eol = pos + k
			}
			if line := text[pos:eol]; !isBlank(line) {
				p := &pyParser{text: line, pos: skipSpace(line, 0)}
				name, args, ok := p.call()
				if !ok || !isBlank(line[p.pos:]) {
					return
				}
				calls = append(calls, rawCall{name: name, args: args})
			}
			pos = eol + 1
		}
		for _, c := range calls {
			f.add(c, span{i, end})
		}
	})
	return f
}

// findGemma: <|tool_call>call:name{k:<|"|>v<|"|>}<tool_call|> (Gemma 4),
// <start_function_call>call:name{k:<escape>v<escape>}<end_function_call>
// (FunctionGemma), or a message that starts with call:name{...}.
func findGemma(s *source) found {
	var f found
	text := s.text
	for _, w := range [][2]string{{"<|tool_call>", "<tool_call|>"}, {"<start_function_call>", "<end_function_call>"}} {
		s.eachTag(w[0], w[1], func(i, body, limit, end int) {
			if name, args, ok := gemmaCall(text[:limit], skipSpace(text, body)); ok {
				f.add(rawCall{name: name, args: args}, span{i, end})
			}
		})
	}
	if len(f.calls) == 0 {
		start := s.messageStart()
		if strings.HasPrefix(text[start:], "call:") && s.allowed(start) {
			if name, args, ok := gemmaCall(text, start); ok {
				f.add(rawCall{name: name, args: args}, span{start, len(text)})
			}
		}
	}
	return f
}

func gemmaCall(text string, i int) (string, any, bool) {
	if !strings.HasPrefix(text[i:], "call:") {
		return "", nil, false
	}
	i += len("call:")
	j := strings.IndexByte(text[i:], '{')
	if j < 0 {
		return "", nil, false
	}
	name := strings.TrimSpace(text[i : i+j])
	p := &pyParser{text: text, pos: i + j, gemma: true}
	v, ok := p.value(0)
	if !ok || !isIdent(name) {
		return "", nil, false
	}
	return name, v, true
}

// pyParser reads Python-like literals and calls. With gemma, strings are
// delimited by <|"|> or <escape> and dict keys may be bare names.
type pyParser struct {
	text  string
	pos   int
	gemma bool
}

// maxLiteralDepth bounds the nesting of a pythonic or Gemma literal: far beyond
// any real argument, and it keeps the recursive parser's stack bounded on
// adversarial input.
const maxLiteralDepth = 64

func (p *pyParser) space() { p.pos = skipSpace(p.text, p.pos) }

func (p *pyParser) eat(tok string) bool {
	p.space()
	if strings.HasPrefix(p.text[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

// list reads [call, call, ...]; it returns nil unless the list is well formed.
func (p *pyParser) list() []rawCall {
	if !p.eat("[") {
		return nil
	}
	var out []rawCall
	for {
		if p.eat("]") {
			return out
		}
		if len(out) > 0 && !p.eat(",") {
			return nil
		}
		name, args, ok := p.call()
		if !ok {
			return nil
		}
		out = append(out, rawCall{name: name, args: args})
	}
}

// call reads name(k=v, ...).
func (p *pyParser) call() (string, map[string]any, bool) {
	p.space()
	name := p.ident(true)
	if name == "" || !p.eat("(") {
		return "", nil, false
	}
	args := map[string]any{}
	for {
		if p.eat(")") {
			return name, args, true
		}
		if len(args) > 0 && !p.eat(",") {
			return "", nil, false
		}
		if p.eat(")") {
			return name, args, true
		}
		p.space()
		key := p.ident(false)
		if key == "" || !p.eat("=") {
			return "", nil, false
		}
		v, ok := p.value(0)
		if !ok {
			return "", nil, false
		}
		args[key] = v
	}
}

// ident reads a name; dotted allows a.b.c.
func (p *pyParser) ident(dotted bool) string {
	start := p.pos
	for p.pos < len(p.text) {
		c := p.text[p.pos]
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9' && p.pos > start) || (dotted && (c == '.' || c == '-') && p.pos > start) {
			p.pos++
			continue
		}
		break
	}
	return p.text[start:p.pos]
}

// value reads a literal: string, number, True/False/None (or JSON's), list, dict.
func (p *pyParser) value(depth int) (any, bool) {
	if depth > maxLiteralDepth {
		return nil, false
	}
	p.space()
	if p.pos >= len(p.text) {
		return nil, false
	}
	rest := p.text[p.pos:]
	switch {
	case p.gemma && strings.HasPrefix(rest, `<|"|>`):
		return p.delimited(`<|"|>`)
	case p.gemma && strings.HasPrefix(rest, "<escape>"):
		return p.delimited("<escape>")
	case rest[0] == '"' || rest[0] == '\'':
		return p.quoted(rest[0])
	case rest[0] == '[':
		p.pos++
		out := []any{}
		for {
			if p.eat("]") {
				return out, true
			}
			if len(out) > 0 && !p.eat(",") {
				return nil, false
			}
			if p.eat("]") {
				return out, true
			}
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			out = append(out, v)
		}
	case rest[0] == '{':
		p.pos++
		out := map[string]any{}
		for {
			if p.eat("}") {
				return out, true
			}
			if len(out) > 0 && !p.eat(",") {
				return nil, false
			}
			if p.eat("}") {
				return out, true
			}
			p.space()
			var key string
			if k, ok := p.value(depth + 1); ok {
				s, isStr := k.(string)
				if !isStr {
					return nil, false
				}
				key = s
			} else {
				return nil, false
			}
			if !p.eat(":") {
				return nil, false
			}
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			out[key] = v
		}
	}
	word := p.ident(false)
	if word != "" {
		switch word {
		case "True", "true":
			return true, true
		case "False", "false":
			return false, true
		case "None", "null":
			return nil, true
		}
		if p.gemma && !p.eat(":") {
			return nil, false
		} else if p.gemma {
			p.pos-- // leave the ':' for the dict
			return word, true
		}
		return nil, false
	}
	start := p.pos
	for p.pos < len(p.text) && strings.IndexByte("+-0123456789.eE", p.text[p.pos]) >= 0 {
		p.pos++
	}
	num := strings.TrimPrefix(p.text[start:p.pos], "+")
	if _, err := strconv.ParseFloat(num, 64); err != nil || num == "" {
		return nil, false
	}
	if !validJSONNumber(num) {
		f, _ := strconv.ParseFloat(num, 64)
		num = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return json.Number(num), true
}

// delimited reads a Gemma string up to the closing delimiter, verbatim.
func (p *pyParser) delimited(d string) (any, bool) {
	p.pos += len(d)
	e := strings.Index(p.text[p.pos:], d)
	if e < 0 {
		return nil, false
	}
	v := p.text[p.pos : p.pos+e]
	p.pos += e + len(d)
	return v, true
}

// quoted reads a Python string literal with backslash escapes.
func (p *pyParser) quoted(q byte) (any, bool) {
	p.pos++
	var b strings.Builder
	for p.pos < len(p.text) {
		c := p.text[p.pos]
		switch {
		case c == q:
			p.pos++
			return b.String(), true
		case c == '\\' && p.pos+1 < len(p.text):
			e := p.text[p.pos+1]
			p.pos += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'u':
				if p.pos+4 <= len(p.text) {
					if r, err := strconv.ParseUint(p.text[p.pos:p.pos+4], 16, 32); err == nil {
						b.WriteRune(rune(r))
						p.pos += 4
						continue
					}
				}
				b.WriteString(`\u`)
			default:
				b.WriteByte(e)
			}
		default:
			r, n := utf8.DecodeRuneInString(p.text[p.pos:])
			b.WriteRune(r)
			p.pos += n
		}
	}
	return nil, false
}
