package textcalls

import (
	"sort"
	"strings"
)

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
	vals, ok := s.parseJSONSeq(start, end)
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
// as the whole message (Llama 3.x without <|python_tag|>), a list of them left
// unclosed after its last complete call, or such a call on lines of its own
// inside prose.
func findBareJSON(s *source) found {
	if f := wholeJSONCalls(s, func(_ jsonValue, calls []rawCall) bool { return len(calls) > 0 }); len(f.calls) > 0 {
		return f
	}
	if f := unclosedCallList(s); len(f.calls) > 0 {
		return f
	}
	return callsInProse(s)
}

// unclosedCallList: the message is [{call}, {call} whose closing ] is
// missing after a complete call. A call cut off inside yields nothing.
func unclosedCallList(s *source) found {
	var f found
	text := s.text
	start := s.messageStart()
	end := len(strings.TrimRight(text, " \t\r\n"))
	if start >= end || text[start] != '[' || matchBracket(text, start) >= 0 || !s.allowed(start) {
		return f
	}
	var calls []rawCall
	for i := start + 1; ; {
		i = skipSpace(text, i)
		if i < end && text[i] == ',' {
			i++
			continue
		}
		if i >= end {
			break
		}
		v, e, ok := s.parseJSONAt(i, end)
		if !ok || text[i] != '{' {
			return f
		}
		cs := v.calls(false)
		if len(cs) == 0 {
			return f
		}
		calls = append(calls, cs...)
		i = e
	}
	for _, c := range calls {
		f.add(c, span{start, end})
	}
	return f
}

// callsInProse: {"name": ..., "arguments"|"parameters": {...}} on lines of its
// own inside prose. A call right after another JSON value is not taken (two
// objects in a row, the first no call, yield no call).
func callsInProse(s *source) found {
	var f found
	text := s.text
	fences := tokenSpans(text, "```") // a fenced block is fenced_json's
	for pos := 0; pos < len(text); pos = nextLine(text, pos) {
		// One line at a time: the call must be the first thing on its line
		// and the last.
		i := skipSpace(text, pos)
		if i >= len(text) {
			break
		}
		lineStart := pos + strings.LastIndexByte(text[pos:i], '\n') + 1
		if text[i] != '{' || !s.allowed(i) || insideFence(fences, i) {
			pos = i
			continue
		}
		e := matchBracket(text, i)
		if e < 0 {
			break
		}
		pos = e
		if !isBlank(text[e:nextLine(text, e)]) {
			continue
		}
		if prev := strings.TrimRight(text[:lineStart], " \t\r\n"); strings.HasSuffix(prev, "}") || strings.HasSuffix(prev, "]") {
			continue
		}
		v, ok := decode(text[i:e])
		m, isObj := v.(map[string]any)
		if !ok || !isObj || !hasArguments(m) {
			continue
		}
		for _, c := range (jsonValue{v: m}).calls(false) {
			f.add(c, span{i, e})
		}
	}
	return f
}

// nextLine returns the index after the line break at or after i, or the end.
func nextLine(text string, i int) int {
	if k := strings.IndexByte(text[i:], '\n'); k >= 0 {
		return i + k + 1
	}
	return len(text)
}

// insideFence reports whether pos lies between an odd and an even one of the
// sorted fence tokens.
func insideFence(fences []span, pos int) bool {
	k := sort.Search(len(fences), func(j int) bool { return fences[j].start >= pos })
	return k%2 == 1
}

// hasArguments reports whether a call object names its arguments.
func hasArguments(m map[string]any) bool {
	for _, k := range []string{"arguments", "parameters"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
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
		vals, ok := s.parseJSONSeq(body, limit)
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
