package textcalls

import "strings"

// Envelopes whose body is JSON between literal tokens.

// findHermes: <tool_call> with a JSON body, or a name on its own line and
// then the JSON arguments; XML bodies belong to qwen3_coder_xml and glm. The
// wrapper may be spelt <user>…</user> (Laguna-style templates).
func findHermes(s *source) found {
	f := findTagged(s, "<tool_call>", "</tool_call>", false, nameLineJSON(s))
	if len(f.calls) > 0 {
		return f
	}
	return findTagged(s, "<user>", "</user>", false, nameLineJSON(s))
}

// nameLineJSON reads a body that is a tool name on its own line followed by
// its JSON arguments and nothing else.
func nameLineJSON(s *source) bodyParser {
	return func(body, limit int) (rawCall, int, bool) {
		text := s.text
		start := skipSpace(text[:limit], body)
		nl := strings.IndexByte(text[start:limit], '\n')
		if nl < 0 {
			return rawCall{}, 0, false
		}
		name := strings.TrimSpace(text[start : start+nl])
		if !isIdent(name) {
			return rawCall{}, 0, false
		}
		v, end, ok := s.parseJSONAt(start+nl, limit)
		if !ok || !isBlank(text[end:limit]) {
			return rawCall{}, 0, false
		}
		if _, isObj := v.v.(map[string]any); !isObj {
			return rawCall{}, 0, false
		}
		return v.call(name), limit, true
	}
}

func findNemotron(s *source) found { return findTagged(s, "<TOOLCALL>", "</TOOLCALL>", false, nil) }

// findApriel: a JSON list (or one call a line, MiniMax-M1) in
// <tool_calls>…</tool_calls>, closed: the Hunyuan-A13B, Jamba and MiniMax-M1
// parsers read the list only up to its closing tag.
func findApriel(s *source) found {
	const close = "</tool_calls>"
	f := findTagged(s, "<tool_calls>", close, false, nil)
	for k := range f.calls {
		// Refused, not left out: no later envelope reads its calls.
		f.calls[k].refused = !strings.HasSuffix(s.text[:f.spans[k].end], close)
	}
	return f
}

func findCommandR(s *source) found {
	return findTagged(s, "<|START_ACTION|>", "<|END_ACTION|>", false, nil)
}

func findApertus(s *source) found {
	return findTagged(s, "<|tools_prefix|>", "<|tools_suffix|>", true, nil)
}

func findGranite(s *source) found { return findTagged(s, "<|tool_call|>", "", false, nil) }

// findFirefunction: functools[...] after a space (FireFunction v2) or at
// the start of the message (Phi-4-mini), in one pass over the text.
func findFirefunction(s *source) found {
	var f found
	start := s.messageStart()
	g := findTagged(s, "functools", "", false, nil)
	for k, c := range g.calls {
		sp := g.spans[k]
		switch {
		case sp.start == start:
		case sp.start > 0 && s.text[sp.start-1] == ' ':
			sp.start-- // the space is part of the opener
		default:
			continue
		}
		f.add(c, sp)
	}
	return f
}

// findInternLM: InternLM2's <|action_start|><|plugin|>{"name": ...,
// "parameters": ...}<|action_end|>.
func findInternLM(s *source) found {
	return findTagged(s, "<|action_start|><|plugin|>", "<|action_end|>", false, nil)
}

// findLongCat: LongCat's <longcat_tool_call>{...}</longcat_tool_call>.
func findLongCat(s *source) found {
	return findTagged(s, "<longcat_tool_call>", "</longcat_tool_call>", false, nil)
}

// findGraniteFC: Granite 20B function calling's <function_call> before each
// JSON call, with no closing token.
func findGraniteFC(s *source) found { return findTagged(s, "<function_call>", "", false, nil) }

// findPythonTag: <|python_tag|>{"name": ..., "parameters": ...} and, when the body
// is not JSON, <|python_tag|>tool.call(query="...") (Llama's built-in tools).
// Without <|eom_id|> the body would run to the end of the message; it ends
// with its call instead, so that the text after it (prose, or another
// envelope, which Extract leaves as content) is not swallowed with it.
func findPythonTag(s *source) found {
	return findTagged(s, "<|python_tag|>", "<|eom_id|>", false, func(body, limit int) (rawCall, int, bool) {
		p := &pyParser{text: s.text[:limit], pos: skipSpace(s.text, body)}
		name, args, ok := p.call()
		return rawCall{name: strings.TrimSuffix(name, ".call"), args: args}, p.pos, ok
	})
}

func findGigaChat(s *source) found {
	if f := findGCML(s); len(f.calls) > 0 {
		return f
	}
	f := findTagged(s, "<|function_call|>", "", false, nil)
	if len(f.calls) > 0 {
		return f
	}
	f = findTagged(s, "function call<|role_sep|>", "", false, nil)
	if len(f.calls) == 0 {
		f = findGigaChatBare(s)
	}
	// The GigaChat 3 call starts with a message separator; cut it too.
	for k, sp := range f.spans {
		f.spans[k].start = precededBy(s.text, sp.start, "<|message_sep|>")
	}
	return f
}

// findGCML: GigaChat 3.5's <｜GCML｜invoke name="x"><｜GCML｜parameter
// name="k" string="true|false">v</｜GCML｜parameter></｜GCML｜invoke>, only
// inside <｜GCML｜tool_calls>…</｜GCML｜tool_calls> (whose end may be cut off),
// where the engines look for them.
func findGCML(s *source) found {
	const p, open, close = "<｜GCML｜", "<｜GCML｜tool_calls>", "</｜GCML｜tool_calls>"
	blocks := blockSpans(s.text, open, close)
	if len(blocks) == 0 {
		return found{}
	}
	g := findInvokes(s, p+"invoke", "</"+p[1:]+"invoke>", p+"parameter", "</"+p[1:]+"parameter>", false, false)
	var f found
	for k, c := range g.calls {
		if inSpans(blocks, g.spans[k].start) {
			f.add(c, wrapSpan(s.text, g.spans[k], open, close))
		}
	}
	if len(f.calls) > 0 {
		f.spans = append(f.spans, tokenSpans(s.text, open, close)...)
	}
	return f
}

// findGigaChatBare: function call{...} with no role separator, the JSON call
// right after the words.
func findGigaChatBare(s *source) found {
	var f found
	text := s.text
	s.eachTag("function call", "", func(i, body, limit, end int) {
		if body >= limit || text[body] != '{' {
			return
		}
		v, e, ok := s.parseJSONAt(body, limit)
		if !ok {
			return
		}
		for _, c := range v.calls(false) {
			f.add(c, span{i, e})
		}
	})
	return f
}

// findMistral handles [TOOL_CALLS] followed by a JSON list, by name{...}, by
// name[ARGS]{...} or by name[CALL_ID]id[ARGS]{...}.
func findMistral(s *source) found {
	const tok = "[TOOL_CALLS]"
	var f found
	text := s.text
	s.eachTag(tok, "", func(i, body, limit, end int) {
		body = skipSpace(text, body)
		if body < limit && text[body] == '[' {
			vals, _ := s.parseJSONSeq(body, limit)
			for _, v := range vals {
				for _, c := range v.calls(false) {
					f.add(c, span{i, end})
				}
			}
			return
		}
		// The name runs to the first { or [; [CALL_ID]id and [ARGS] may follow it.
		nameEnd := limit
		if k := strings.IndexAny(text[body:limit], "{["); k >= 0 {
			nameEnd = body + k
		}
		name := strings.TrimSpace(text[body:nameEnd])
		j := nameEnd
		if strings.HasPrefix(text[j:limit], "[CALL_ID]") {
			if k := strings.Index(text[j:limit], "[ARGS]"); k >= 0 {
				j += k
			}
		}
		if strings.HasPrefix(text[j:limit], "[ARGS]") {
			j += len("[ARGS]")
		}
		if v, argEnd, ok := s.parseJSONAt(j, limit); ok && isIdent(name) {
			e := end
			if strings.TrimSpace(text[argEnd:limit]) != "" {
				e = argEnd
			}
			f.add(v.call(name), span{i, e})
		}
	})
	return f
}

// isIdent reports whether name looks like a tool name: up to 256 ASCII letters,
// digits and _ - . : / (as in functions.get_time, mcp:server/tool).
func isIdent(name string) bool {
	if name == "" || len(name) > 256 {
		return false
	}
	for _, r := range name {
		ok := r == '_' || r == '-' || r == '.' || r == ':' || r == '/' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return true
}
