package textcalls

import "strings"

// findAtem: the ATEM channel envelope, one message a call block:
//
//	 to=NAME<|message|><atem:function_calls><atem:invoke name="NAME">
//	<atem:parameter name="k">v</atem:parameter>…</atem:invoke></atem:function_calls>
//
// Values are JSON-typed (3, true, [..], null) and strings are kept verbatim,
// spaces included; several messages may follow one another, and the recipient
// header may be missing (the name comes from the invoke).
func findAtem(s *source) found {
	const (
		calls, callsEnd = "<atem:function_calls>", "</atem:function_calls>"
	)
	f := findInvokes(s, "<atem:invoke name=", "</atem:invoke>", "<atem:parameter name=", "</atem:parameter>", true, false)
	if len(f.calls) == 0 {
		return f
	}
	text := s.text
	for pos := 0; ; {
		i := indexFrom(text, calls, pos)
		if i < 0 {
			break
		}
		f.spans = append(f.spans, span{atemHeaderStart(text, i), i + len(calls)})
		pos = i + len(calls)
	}
	for pos := 0; ; {
		i := indexFrom(text, callsEnd, pos)
		if i < 0 {
			break
		}
		end := i + len(callsEnd)
		for _, tok := range []string{"<|call|>", "<|end|>"} {
			if strings.HasPrefix(text[end:], tok) {
				end += len(tok)
			}
		}
		f.spans = append(f.spans, span{i, end})
		pos = end
	}
	return f
}

// atemHeaderStart returns where the header of the message whose call block
// opens at i starts: "<|start|>…<|channel|>… to=NAME<|message|>" right
// before it, or i.
func atemHeaderStart(text string, i int) int {
	start := precededBy(text, i, "<|message|>")
	if start == i {
		return i
	}
	h := lastBefore(text, start, "to=")
	if h < 0 || strings.ContainsAny(text[h:start], " \n<>") {
		return start
	}
	// The header starts at its <|start|> (or <|channel|>), if that belongs to
	// this message.
	for _, tok := range []string{"<|start|>", "<|channel|>"} {
		if k := lastBefore(text, h, tok); k >= 0 && !strings.Contains(text[k:h], "<|message|>") {
			return k
		}
	}
	return h
}
