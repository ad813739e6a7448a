package textcalls

import "strings"

// maxTagSuffix bounds the checkpoint suffix of a Hunyuan tag (":opensource"):
// a longer run before '>' is not a tag.
const maxTagSuffix = 64

// findHunyuan: Hunyuan Hy3's <tool_calls> block of
// <tool_call>name<tool_sep><arg_key>k</arg_key><arg_value>v</arg_value></tool_call>
// entries, and Hy4's, which drops <tool_sep> and spells every tag with the
// checkpoint's suffix (<tool_calls:opensource>, <arg_key:opensource>, …);
// also the dense Hunyuan models' entries, the name and then the arguments
// in a json code fence (hunyuanJSONEntry).
// An entry counts only inside a block whose tags carry the same suffix, as
// the engines read it; the block's end may be cut off. Hunyuan-A13B's JSON
// list in <tool_calls> is the apriel envelope.
func findHunyuan(s *source) found {
	var f found
	text := s.text
	for pos := 0; pos < len(text); {
		i := s.index("<tool_calls", pos)
		if i < 0 {
			break
		}
		open := i + len("<tool_calls")
		gt := strings.IndexByte(text[open:min(len(text), open+maxTagSuffix+1)], '>')
		suffix := ""
		if gt >= 0 {
			suffix = text[open : open+gt]
		}
		if gt < 0 || suffix != "" && (suffix[0] != ':' || strings.ContainsAny(suffix, " \t\r\n<")) {
			pos = open
			continue
		}
		body := open + gt + 1
		closeTok := "</tool_calls" + suffix + ">"
		limit, end := len(text), len(text)
		if k := strings.Index(text[body:], closeTok); k >= 0 {
			limit, end = body+k, body+k+len(closeTok)
		}
		calls, spans := hunyuanEntries(s, body, limit, suffix)
		if len(calls) > 0 {
			// The block's tags go with its first and last entries, so that
			// a quoted block is seen quoted and the cut takes it whole.
			spans[0].start = i
			spans[len(spans)-1].end = end
		}
		for k, c := range calls {
			f.add(c, spans[k])
		}
		pos = max(end, body)
	}
	return f
}

// hunyuanEntries reads the <tool_call> entries of a block's body
// text[body:limit].
func hunyuanEntries(s *source, body, limit int, suffix string) ([]rawCall, []span) {
	text := s.text
	open, closeTok, sep := "<tool_call"+suffix+">", "</tool_call"+suffix+">", "<tool_sep"+suffix+">"
	var calls []rawCall
	var spans []span
	for p := body; p < limit; {
		k := strings.Index(text[p:limit], open)
		if k < 0 {
			break
		}
		start := p + k
		b := start + len(open)
		e, next := limit, limit
		closed := false
		if j := strings.Index(text[b:limit], closeTok); j >= 0 {
			e, next, closed = b+j, b+j+len(closeTok), true
		}
		p = next
		if !closed && s.cutOff(limit) {
			continue
		}
		entry := text[b:e]
		if j := strings.Index(entry, "<arg_key"+suffix+">"); j >= 0 || strings.Contains(entry, sep) {
			if j < 0 {
				j = len(entry)
			}
			name, _ := strings.CutSuffix(strings.TrimSpace(entry[:j]), sep)
			args, valueOpen, ok := keyValueArgs(entry[j:], suffix)
			if name = strings.TrimSpace(name); isIdent(name) && ok && !valueOpen {
				calls = append(calls, rawCall{name: name, args: args, untyped: true})
				spans = append(spans, span{start, next})
			}
			continue
		}
		if c, ok := hunyuanJSONEntry(s, b, e); ok {
			calls = append(calls, c)
			spans = append(spans, span{start, next})
		}
	}
	return calls, spans
}

// hunyuanJSONEntry reads the entry text[b:e] of the dense Hunyuan models
// (Hunyuan-7B and its smaller siblings), whose template asks for the name on
// its own line and the arguments as a JSON object in a json code fence:
// get_time\n```json\n{"city": "Oslo"}\n```. Nothing else may be in it.
func hunyuanJSONEntry(s *source, b, e int) (rawCall, bool) {
	text := s.text
	b = skipSpace(text[:e], b)
	nl := strings.IndexByte(text[b:e], '\n')
	if nl < 0 {
		return rawCall{}, false
	}
	name := strings.TrimSpace(text[b : b+nl])
	body := strings.TrimSpace(text[b+nl : e])
	inner, fenced := strings.CutPrefix(body, "```json")
	inner, closed := strings.CutSuffix(inner, "```")
	if !isIdent(name) || !fenced || !closed {
		return rawCall{}, false
	}
	at := b + nl + strings.Index(text[b+nl:e], "```json") + len("```json")
	v, end, ok := s.parseJSONAt(at, at+len(inner))
	if _, isObj := v.v.(map[string]any); !ok || !isObj || !isBlank(text[end:at+len(inner)]) {
		return rawCall{}, false
	}
	return v.call(name), true
}
