package textcalls

import "strings"

// Envelopes with no model-specific tokens: JSON as the whole message, or in a
// fenced block. These are tried last and held to the strictest rules.

// wholeJSON decodes the message as one or more JSON values and nothing else.
func wholeJSON(s *source) ([]jsonValue, span, bool) {
	text := s.text
	start := s.messageStart()
	end := len(strings.TrimRight(text, " \t\r\n"))
	if start >= end || !s.allowed(start) {
		return nil, span{}, false
	}
	vals, ok := parseJSONSeq(text, start, end)
	return vals, span{start, end}, ok
}

// wholeJSONCalls returns the calls of a message that is nothing but JSON values,
// each of which keep accepts; none when one is not.
func wholeJSONCalls(s *source, keep func(v jsonValue, calls []rawCall) bool) found {
	var f found
	vals, sp, ok := wholeJSON(s)
	if !ok {
		return f
	}
	for _, v := range vals {
		calls := v.calls(false)
		if !keep(v, calls) {
			return found{}
		}
		for _, c := range calls {
			f.add(c, sp)
		}
	}
	return f
}

// findToolCallsJSON: {"tool_calls": [...]} as the whole message.
func findToolCallsJSON(s *source) found {
	return wholeJSONCalls(s, func(v jsonValue, _ []rawCall) bool {
		m, isObj := v.v.(map[string]any)
		return isObj && m["tool_calls"] != nil
	})
}

// findBareJSON: {"name": ..., "parameters"|"arguments": ...} (or a list of them)
// as the whole message (Llama 3.x without <|python_tag|>).
func findBareJSON(s *source) found {
	return wholeJSONCalls(s, func(_ jsonValue, calls []rawCall) bool { return len(calls) > 0 })
}

// findFenced: ```json blocks (or unlabelled ones) whose content is calls.
func findFenced(s *source) found {
	var f found
	text := s.text
	for pos := 0; ; {
		i := indexFrom(text, "```", pos)
		if i < 0 {
			return f
		}
		// The fence itself is code: only reasoning and examples rule it out.
		if inSpans(s.thought, i) || introducedAsExample(text, i) {
			pos = i + 3
			if c := strings.Index(text[pos:], "```"); c >= 0 {
				pos += c + 3
			}
			continue
		}
		nl := strings.IndexByte(text[i:], '\n')
		if nl < 0 {
			return f
		}
		lang := strings.ToLower(strings.TrimSpace(text[i+3 : i+nl]))
		body := i + nl + 1
		c := strings.Index(text[body:], "```")
		if c < 0 {
			return f
		}
		limit, end := body+c, body+c+3
		pos = end
		if lang != "json" && lang != "" {
			continue
		}
		vals, ok := parseJSONSeq(text, body, limit)
		if !ok {
			continue
		}
		sp := span{i, end}
		// Command R+ writes "Action:" before its block; cut it with the block.
		sp.start = precededBy(text, i, "Action:")
		for _, v := range vals {
			for _, call := range v.calls(false) {
				f.add(call, sp)
			}
		}
	}
}
