package textcalls

import "strings"

// Envelopes written as XML-like tags whose parameter values are untyped text.

// trimValue strips the newline that a template puts after an opening parameter
// tag and, only when there was one, the newline before the closing tag.
func trimValue(v string) string {
	t := strings.TrimPrefix(strings.TrimPrefix(v, "\r"), "\n")
	if len(t) == len(v) {
		return v
	}
	return strings.TrimSuffix(strings.TrimSuffix(t, "\n"), "\r")
}

// wrapSpan widens sp to an enclosing open...close pair that holds only space
// around it.
func wrapSpan(text string, sp span, open, close string) span {
	if open == "" {
		return sp
	}
	for {
		// A repeated open tag wraps the call too: <tool_call><tool_call>…
		k := precededBy(text, sp.start, open)
		if k == sp.start {
			break
		}
		sp.start = k
	}
	k := skipSpace(text, sp.end)
	switch {
	case strings.HasPrefix(text[k:], close):
		sp.end = k + len(close)
	case k < len(text) && strings.HasPrefix(close, strings.TrimSpace(text[k:])):
		sp.end = len(text) // a truncated closing tag at the very end
	}
	return sp
}

// precededBy returns the index of tok when only space separates it from pos, else pos.
func precededBy(text string, pos int, tok string) int {
	k := len(strings.TrimRight(text[:pos], " \t\r\n"))
	if strings.HasSuffix(text[:k], tok) {
		return k - len(tok)
	}
	return pos
}

// scanQwenXML finds <function=name> <parameter=k>v</parameter> ... </function>.
// With jsonBody, only functions whose body is a JSON object (functionary) count;
// otherwise only those whose body is not. wrapOpen/wrapClose is the tag around,
// cut with the call. When within is not nil, only functions starting inside one
// of its (sorted) spans count.
func scanQwenXML(s *source, jsonBody bool, within []span, wrapOpen, wrapClose string) found {
	var f found
	text := s.text
	s.eachTag("<function=", "</function>", func(i, body, limit, end int) {
		if within != nil && !inSpans(within, i) {
			return
		}
		gt := strings.IndexByte(text[body:limit], '>')
		if gt < 0 {
			return
		}
		name := strings.TrimSpace(text[body : body+gt])
		body += gt + 1
		if wrapClose != "" {
			if k := strings.Index(text[body:limit], wrapClose); k >= 0 {
				limit, end = body+k, body+k
			}
		}
		sp := wrapSpan(text, span{i, end}, wrapOpen, wrapClose)
		isJSON := strings.HasPrefix(strings.TrimSpace(text[body:limit]), "{")
		if isJSON != jsonBody || !isIdent(name) {
			return
		}
		if jsonBody {
			if v, _, ok := s.parseJSONAt(body, limit); ok {
				f.add(v.call(name), sp)
			}
			return
		}
		args := map[string]any{}
		truncated := false
		for p := body; ; {
			k := strings.Index(text[p:limit], "<parameter=")
			if k < 0 {
				break
			}
			ks := p + k + len("<parameter=")
			kg := strings.IndexByte(text[ks:limit], '>')
			if kg < 0 {
				break
			}
			key := strings.TrimSpace(text[ks : ks+kg])
			vs := ks + kg + 1
			// A value ends at its closing tag or, when the model left it
			// open, where the next parameter starts, whichever comes first
			// (as the format's reference parsers read it).
			ve := limit
			next := vs
			closing := strings.Index(text[vs:limit], "</parameter>")
			opening := nextParameterTag(text[vs:limit])
			if closing >= 0 && (opening < 0 || closing < opening) {
				ve, next = vs+closing, vs+closing+len("</parameter>")
			} else if opening >= 0 {
				ve, next = vs+opening, vs+opening
			} else {
				if s.cutOff(limit) {
					truncated = true
				}
				next = limit
			}
			args[key] = trimValue(text[vs:ve])
			p = next
		}
		if !truncated {
			f.add(rawCall{name: name, args: args, untyped: true, cut: cutAt(text, end, "</function>")}, sp)
		}
	})
	return f
}

// nextParameterTag returns where the first opening tag <parameter=name> in t
// starts, or -1. Text that only looks like one, "<parameter=" without a '>'
// closing a name free of '<', is value text.
func nextParameterTag(t string) int {
	for at := 0; ; {
		k := strings.Index(t[at:], "<parameter=")
		if k < 0 {
			return -1
		}
		name := t[at+k+len("<parameter="):]
		if gt := strings.IndexByte(name, '>'); gt >= 0 && !strings.Contains(name[:gt], "<") {
			return at + k
		}
		at += k + len("<parameter=")
	}
}

func findQwenXML(s *source) found { return scanQwenXML(s, false, nil, "<tool_call>", "</tool_call>") }

// findSeed: the qwen3_coder_xml form inside <seed:tool_call>...</seed:tool_call>.
func findSeed(s *source) found {
	const open, close = "<seed:tool_call>", "</seed:tool_call>"
	var wrappers []span
	s.eachTag(open, close, func(_, body, limit, _ int) {
		wrappers = append(wrappers, span{body, limit})
	})
	if len(wrappers) == 0 {
		return found{}
	}
	return scanQwenXML(s, false, wrappers, open, close)
}

// findFunctionary: <function=name>{...}</function> (v3.1) and >>>name\n{...} (v3.2,
// whose first ">>>" the template writes, so a message may start with name\n{...}).
func findFunctionary(s *source) found {
	f := scanQwenXML(s, true, nil, "", "")
	if len(f.calls) > 0 {
		return f
	}
	text := s.text
	first := s.messageStart()
	for pos := first; pos < len(text); {
		start := pos
		i := pos
		if strings.HasPrefix(text[i:], ">>>") {
			i += 3
		} else if pos != first {
			k := strings.Index(text[pos:], ">>>")
			if k < 0 {
				break
			}
			start, i = pos+k, pos+k+3
		}
		nl := strings.IndexByte(text[i:], '\n')
		if nl < 0 {
			break
		}
		name := strings.TrimSpace(text[i : i+nl])
		body := i + nl + 1
		limit := len(text)
		if k := strings.Index(text[body:], ">>>"); k >= 0 {
			limit = body + k
		}
		pos = max(limit, body)
		if !isIdent(name) || !s.allowed(start) {
			continue
		}
		if v, end, ok := s.parseJSONAt(body, limit); ok && strings.TrimSpace(text[end:limit]) == "" {
			f.add(v.call(name), span{start, limit})
		}
	}
	return f
}

// findGLM: <tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>,
// closed: a call left open (its values closed or not) is no call, as the
// engines' GLM parsers read it.
func findGLM(s *source) found {
	var f found
	text := s.text
	s.eachTag("<tool_call>", "</tool_call>", func(i, body, limit, end int) {
		b := text[body:limit]
		nameEnd := strings.Index(b, "<arg_key>")
		if nameEnd < 0 {
			nameEnd = len(b)
		}
		name := strings.TrimSpace(b[:nameEnd])
		if !isIdent(name) {
			return
		}
		// A value left open before </tool_call> is a slip and is kept;
		// the GLM parsers read a call only up to its </tool_call>.
		args, _, ok := keyValueArgs(b[nameEnd:], "")
		if !ok || end == limit {
			return
		}
		f.add(rawCall{name: name, args: args, untyped: true}, span{i, end})
	})
	return f
}

// keyValueArgs reads the <arg_key>k</arg_key><arg_value>v</arg_value> pairs
// of b (GLM, Hunyuan), each tag spelt with suffix before its '>' (Hunyuan
// Hy4's <arg_key:x>). ok is false when a key has no value, as engines parse
// it; open is true when the last value runs to the end of b unclosed.
func keyValueArgs(b, suffix string) (args map[string]any, open, ok bool) {
	keyOpen, keyClose := "<arg_key"+suffix+">", "</arg_key"+suffix+">"
	valOpen, valClose := "<arg_value"+suffix+">", "</arg_value"+suffix+">"
	args = map[string]any{}
	for p := 0; ; {
		k := strings.Index(b[p:], keyOpen)
		if k < 0 {
			return args, false, true
		}
		ks := p + k + len(keyOpen)
		ke := strings.Index(b[ks:], keyClose)
		if ke < 0 {
			return args, false, true
		}
		key := strings.TrimSpace(b[ks : ks+ke])
		vs := strings.Index(b[ks+ke:], valOpen)
		if vs < 0 {
			return nil, false, false
		}
		vs += ks + ke + len(valOpen)
		ve := strings.Index(b[vs:], valClose)
		if ve < 0 {
			args[key] = trimValue(b[vs:])
			return args, true, true
		}
		args[key] = trimValue(b[vs : vs+ve])
		p = vs + ve
	}
}

// attr returns the value of name="..." (or name='...', as MiniCPM5 may
// write it) in a tag's text.
func attr(tag, name string) (string, bool) {
	for _, q := range []string{`"`, "'"} {
		k := strings.Index(tag, name+"="+q)
		if k < 0 {
			continue
		}
		v := tag[k+len(name)+2:]
		e := strings.Index(v, q)
		if e < 0 {
			return "", false
		}
		return v[:e], true
	}
	return "", false
}

// findInvokes finds <invoke name="x"><parameter name="k" [string="..."]>v
// </parameter></invoke> with the given tag spellings (MiniMax, DeepSeek DSML,
// MiniCPM). A value wrapped in <![CDATA[...]]> is taken verbatim, closing tags
// inside it included.
//
// With typed, a value that is JSON other than a string (3, true, [..], null)
// is taken as that value, and other text is kept verbatim. With strict (an
// engine that refuses such calls), a parameter tag without a name, a key
// given twice, or a required argument missing makes the invoke no call.
func findInvokes(s *source, invoke, invokeEnd, param, paramEnd string, typed, strict bool) found {
	var f found
	text := s.text
	s.eachTag(invoke, invokeEnd, func(i, body, limit, end int) {
		gt := strings.IndexByte(text[body:limit], '>')
		if gt < 0 {
			return
		}
		name, _ := attr(text[i:body+gt], "name")
		args := map[string]any{}
		truncated := false
		if strict && unnamedTag(text[body+gt+1:limit], strings.TrimSuffix(param, " name=")) {
			return
		}
		for p := body + gt + 1; ; {
			k := strings.Index(text[p:limit], param)
			if k < 0 {
				break
			}
			ts := p + k
			tg := strings.IndexByte(text[ts:limit], '>')
			if tg < 0 {
				break
			}
			tag := text[ts : ts+tg]
			key, _ := attr(tag, "name")
			val, next, closed := paramValue(text, ts+tg+1, limit, paramEnd)
			if !closed {
				truncated = truncated || s.cutOff(limit)
			}
			var v any = val
			if str, ok := attr(tag, "string"); ok && str == "false" {
				if d, ok := decode(strings.TrimSpace(val)); ok {
					v = d
				}
			} else if typed {
				if d, ok := decode(strings.TrimSpace(val)); ok {
					if _, isStr := d.(string); !isStr {
						v = d
					}
				}
			}
			if _, dup := args[key]; dup && strict {
				return
			}
			args[key] = v
			p = next
		}
		if !truncated {
			f.add(rawCall{name: name, args: args, untyped: true, cut: cutAt(text, end, invokeEnd), needRequired: strict}, span{i, end})
		}
	})
	return f
}

// unnamedTag reports whether b holds a tag spelt tag (as "<param") that
// carries no name attribute.
func unnamedTag(b, tag string) bool {
	for p := 0; ; {
		k := strings.Index(b[p:], tag)
		if k < 0 {
			return false
		}
		t := b[p+k+len(tag):]
		gt := strings.IndexByte(t, '>')
		if gt < 0 {
			return false
		}
		if (t[0] == '>' || t[0] == ' ') && !strings.Contains(t[:gt], "name=") {
			return true
		}
		p += k + len(tag)
	}
}

// paramValue reads the value that starts at vs up to paramEnd (before limit): a
// <![CDATA[...]]> section verbatim, or else the text trimmed as trimValue does.
// closed is false when the value runs to limit unclosed; next is where to look
// for the next parameter.
func paramValue(text string, vs, limit int, paramEnd string) (val string, next int, closed bool) {
	const cdata, cdataEnd = "<![CDATA[", "]]>"
	if c := skipSpace(text[:limit], vs); strings.HasPrefix(text[c:limit], cdata) {
		cs := c + len(cdata)
		ce := strings.Index(text[cs:limit], cdataEnd)
		if ce < 0 {
			return text[cs:limit], limit, false
		}
		val = text[cs : cs+ce]
		after := skipSpace(text[:limit], cs+ce+len(cdataEnd))
		if !strings.HasPrefix(text[after:limit], paramEnd) {
			return val, limit, false
		}
		return val, after + len(paramEnd), true
	}
	ve := strings.Index(text[vs:limit], paramEnd)
	if ve < 0 {
		return trimValue(text[vs:limit]), limit, false
	}
	return trimValue(text[vs : vs+ve]), vs + ve + len(paramEnd), true
}

// findMiniMax: <invoke name="x"><parameter name="k">v</parameter></invoke>
// inside <minimax:tool_call>…</minimax:tool_call>, the block MiniMax-M2's chat
// template writes the calls in. As the engines' parsers read it, only a
// whole block counts, and in it only a whole invoke: a block or invoke left
// open, or an <invoke> outside a block (other markup uses the same tag), is
// no call.
func findMiniMax(s *source) found {
	const open, close = "<minimax:tool_call>", "</minimax:tool_call>"
	var blocks []span
	for _, b := range blockSpans(s.text, open, close) {
		if strings.HasSuffix(s.text[:b.end], close) {
			blocks = append(blocks, b)
		}
	}
	if len(blocks) == 0 {
		return found{}
	}
	g := findInvokes(s, "<invoke name=", "</invoke>", "<parameter name=", "</parameter>", false, false)
	var f found
	for k, c := range g.calls {
		sp := g.spans[k]
		if inSpans(blocks, sp.start) && inSpans(blocks, sp.end-1) && strings.HasSuffix(s.text[:sp.end], "</invoke>") {
			f.add(c, wrapSpan(s.text, sp, open, close))
		}
	}
	return f
}

// blockSpans returns the spans of the open…close blocks of text, in order;
// a block left open runs to the end.
func blockSpans(text, open, close string) []span {
	var blocks []span
	for pos := 0; pos < len(text); {
		i := strings.Index(text[pos:], open)
		if i < 0 {
			break
		}
		start := pos + i
		end := len(text)
		if j := strings.Index(text[start:], close); j >= 0 {
			end = start + j + len(close)
		}
		blocks = append(blocks, span{start, end})
		pos = end
	}
	return blocks
}

// findMiniCPM: <function name="x"><param name="k">v</param></function>, values
// possibly in <![CDATA[...]]>. Strict, as MiniCPM5's parser is: a param
// without a name, a key given twice or a required argument missing is no
// call.
func findMiniCPM(s *source) found {
	return findInvokes(s, "<function name=", "</function>", "<param name=", "</param>", false, true)
}

// findForge: <tool>{"server_name", "tool_name", "arguments"}</tool> and
// <tool><server_name>s</server_name><tool_name>t</tool_name><arguments>{...}</arguments></tool>.
func findForge(s *source) found {
	return findTagged(s, "<tool>", "</tool>", false, func(body, limit int) (rawCall, int, bool) {
		b := s.text[body:limit]
		name, nameClosed := child(b, "tool_name")
		args, argsClosed := child(b, "arguments")
		if (!nameClosed || !argsClosed) && s.cutOff(limit) {
			return rawCall{}, 0, false // cut off with the response: the arguments would be invented
		}
		return rawCall{name: strings.TrimSpace(name), args: args, argsRaw: true}, limit, true
	})
}

// child returns the text of <name>...</name> in b. An element left open runs to
// the end of b, with closed false; a missing one is "" with closed true.
func child(b, name string) (text string, closed bool) {
	k := strings.Index(b, "<"+name+">")
	if k < 0 {
		return "", true
	}
	v := b[k+len(name)+2:]
	e := strings.Index(v, "</"+name+">")
	if e < 0 {
		return v, false
	}
	return v[:e], true
}
