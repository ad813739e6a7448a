package textcalls

import "strings"

// Envelopes made of a model family's special tokens: Kimi-K2, DeepSeek, gpt-oss.

// findKimi: [<|tool_calls_section_begin|>] <|tool_call_begin|>functions.name:0
// <|tool_call_argument_begin|>{...}<|tool_call_end|> ... [<|tool_calls_section_end|>].
func findKimi(s *source) found {
	const (
		begin   = "<|tool_call_begin|>"
		argTok  = "<|tool_call_argument_begin|>"
		endTok  = "<|tool_call_end|>"
		secOpen = "<|tool_calls_section_begin|>"
		secEnd  = "<|tool_calls_section_end|>"
	)
	var f found
	text := s.text
	for pos := 0; ; {
		i := s.index(begin, pos)
		if i < 0 {
			break
		}
		head := i + len(begin)
		next := len(text)
		if k := strings.Index(text[head:], begin); k >= 0 {
			next = head + k
		}
		a := strings.Index(text[head:next], argTok)
		if a < 0 {
			pos = next
			continue
		}
		id := strings.TrimSpace(text[head : head+a])
		body := head + a + len(argTok)
		limit, end := bodyEnd(text, body, begin, endTok)
		if k := strings.Index(text[body:limit], secEnd); k >= 0 {
			limit, end = body+k, body+k
		}
		name := strings.TrimPrefix(id, "functions.")
		if c := strings.LastIndexByte(name, ':'); c >= 0 {
			name = name[:c]
		}
		if v, ok := s.parseArgsAt(body, limit); ok {
			f.add(v.call(name), span{i, end})
		}
		pos = max(end, body)
	}
	if len(f.calls) > 0 {
		f.spans = append(f.spans, tokenSpans(text, secOpen, secEnd)...)
	}
	return f
}

// tokenSpans returns the spans of every occurrence of the given tokens.
func tokenSpans(text string, toks ...string) []span {
	var out []span
	for _, t := range toks {
		for pos := 0; ; {
			i := strings.Index(text[pos:], t)
			if i < 0 {
				break
			}
			out = append(out, span{pos + i, pos + i + len(t)})
			pos += i + len(t)
		}
	}
	return out
}

// deepSeekTokens are the DeepSeek call tokens, in the full-width spelling the
// tokenizer uses, in the ASCII spelling some servers print, and in the old
// DeepSeek-V3 spelling with ASCII bars.
var deepSeekTokens = []struct{ callsBegin, callsEnd, begin, sep, end string }{
	{"<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"},
	{"<|tool_calls_begin|>", "<|tool_calls_end|>", "<|tool_call_begin|>", "<|tool_sep|>", "<|tool_call_end|>"},
	// The old DeepSeek-V3 template: ASCII bars around the ▁ words.
	{"<|tool▁calls▁begin|>", "<|tool▁calls▁end|>", "<|tool▁call▁begin|>", "<|tool▁sep|>", "<|tool▁call▁end|>"},
}

// findDeepSeek: <｜tool▁call▁begin｜>function<｜tool▁sep｜>name\n```json\n{...}\n```
// <｜tool▁call▁end｜> (R1, V3) and <｜tool▁call▁begin｜>name<｜tool▁sep｜>{...}
// <｜tool▁call▁end｜> (V3.1).
func findDeepSeek(s *source) found {
	var f found
	text := s.text
	for _, t := range deepSeekTokens {
		for pos := 0; ; {
			i := s.index(t.begin, pos)
			if i < 0 {
				break
			}
			head := i + len(t.begin)
			next := len(text)
			if k := strings.Index(text[head:], t.begin); k >= 0 {
				next = head + k
			}
			k := strings.Index(text[head:next], t.sep)
			if k < 0 {
				pos = next
				continue
			}
			name := strings.TrimSpace(text[head : head+k])
			body := head + k + len(t.sep)
			limit, end := bodyEnd(text, body, t.begin, t.end)
			if name == "function" || name == "" {
				nl := strings.IndexByte(text[body:limit], '\n')
				if nl < 0 {
					nl = limit - body
				}
				name = strings.TrimSpace(text[body : body+nl])
				body += nl
				body = skipSpace(text, body)
				if strings.HasPrefix(text[body:limit], "```") {
					if e := strings.IndexByte(text[body:limit], '\n'); e >= 0 {
						body += e
					}
					if c := strings.LastIndex(text[body:limit], "```"); c >= 0 {
						limit = body + c
					}
				}
			}
			if v, ok := s.parseArgsAt(body, limit); ok {
				f.add(v.call(name), span{i, end})
			}
			pos = max(end, body)
		}
		if len(f.calls) > 0 {
			f.spans = append(f.spans, tokenSpans(text, t.callsBegin, t.callsEnd)...)
			return f
		}
	}
	return f
}

// findDSML: DeepSeek V3.2's <｜DSML｜invoke name="x"><｜DSML｜parameter name="k"
// string="true|false">v</｜DSML｜parameter></｜DSML｜invoke>.
func findDSML(s *source) found {
	const p = "<｜DSML｜"
	f := findInvokes(s, p+"invoke", "</"+p[1:]+"invoke>", p+"parameter", "</"+p[1:]+"parameter>", false, false)
	if len(f.calls) > 0 {
		f.spans = append(f.spans, tokenSpans(s.text, p+"function_calls>", "</"+p[1:]+"function_calls>")...)
	}
	return f
}

// findStep3: Step-3's <steptml:invoke name="x"><steptml:parameter name="k">v
// </steptml:parameter></steptml:invoke>, each in <｜tool_call_begin｜>function
// <｜tool_sep｜>…<｜tool_call_end｜>, all in <｜tool_calls_begin｜>…
// <｜tool_calls_end｜> (full-width bars around ASCII words).
func findStep3(s *source) found {
	const begin, end = "<｜tool_call_begin｜>function<｜tool_sep｜>", "<｜tool_call_end｜>"
	f := findInvokes(s, "<steptml:invoke name=", "</steptml:invoke>", "<steptml:parameter name=", "</steptml:parameter>", false, false)
	for k, sp := range f.spans {
		f.spans[k] = wrapSpan(s.text, sp, begin, end)
	}
	if len(f.calls) > 0 {
		f.spans = append(f.spans, tokenSpans(s.text, "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>")...)
	}
	return f
}

// findHarmony: gpt-oss messages whose header says to=functions.name; the body
// after <|message|> is the JSON arguments.
func findHarmony(s *source) found {
	const to = "to=functions."
	var f found
	text := s.text
	for pos := 0; ; {
		i := s.index(to, pos)
		if i < 0 {
			return f
		}
		nameStart := i + len(to)
		j := nameStart
		for j < len(text) && text[j] != ' ' && text[j] != '<' && text[j] != '\n' {
			j++
		}
		name := text[nameStart:j]
		m := strings.Index(text[j:], "<|message|>")
		if m < 0 {
			return f
		}
		if strings.Contains(text[j:j+m], "<|start|>") || strings.Contains(text[j:j+m], "<|end|>") {
			pos = j
			continue
		}
		body := j + m + len("<|message|>")
		limit := len(text)
		for _, tok := range []string{"<|call|>", "<|end|>", "<|start|>"} {
			if k := strings.Index(text[body:], tok); k >= 0 && body+k < limit {
				limit = body + k
			}
		}
		end := limit
		if strings.HasPrefix(text[limit:], "<|call|>") || strings.HasPrefix(text[limit:], "<|end|>") {
			end = limit + strings.IndexByte(text[limit:], '>') + 1
		}
		// The call starts at its header's <|start|> (or <|channel|>), if that
		// belongs to this message.
		start := i
		for _, tok := range []string{"<|start|>", "<|channel|>"} {
			if k := lastBefore(text, i, tok); k >= 0 && !strings.Contains(text[k:i], "<|message|>") {
				start = k
				break
			}
		}
		if v, _, ok := s.parseJSONAt(body, limit); ok {
			f.add(v.call(name), span{start, end})
		}
		pos = max(end, body)
	}
}
