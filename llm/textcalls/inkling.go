package textcalls

import "strings"

// Inkling's special tokens: a model message opens with <|message_model|>, its
// content is typed by the token after the header, and it ends with
// <|end_message|>.
const (
	inklingMessage = "<|message_model|>"
	inklingInvoke  = "<|content_invoke_tool_json|>"
	inklingEnd     = "<|end_message|>"
	inklingThought = "<|content_thinking|>"
)

// findInkling: <|message_model|>name<|content_invoke_tool_json|>{"name":
// "name", "args": {...}}<|end_message|>, a model message whose content is one
// call. The header names the tool again: a header that disagrees with the
// payload's name is no call, and neither is a payload without an "args"
// object, as the engines read it. Detokenized text may keep only the invoke
// token, the header glued before it; the end token may be missing.
func findInkling(s *source) found {
	var f found
	text := s.text
	s.eachTag(inklingInvoke, inklingEnd, func(i, body, limit, end int) {
		hs := i // the header: the tool-name bytes glued before the token
		for hs > 0 && isNameByte(text[hs-1]) {
			hs--
		}
		v, e, ok := s.parseJSONAt(body, limit)
		if !ok || !isBlank(text[e:limit]) {
			return
		}
		obj, _ := v.v.(map[string]any)
		name, _ := obj["name"].(string)
		args, isObj := obj["args"].(map[string]any)
		header := text[hs:i]
		if name != "" && header != name && strings.HasSuffix(header, name) && strings.ContainsRune(".:/-", rune(header[len(header)-len(name)-1])) {
			// Text glued before the header ("Checking.get_time"): the
			// header is the name, the rest is text.
			hs, header = i-len(name), name
		}
		if name == "" || !isObj || header != "" && header != name {
			return
		}
		start := precededBy(text, hs, inklingMessage)
		if start != i && !s.allowed(start) {
			return // the header is introduced as an example
		}
		f.add(rawCall{name: name, args: args, fixes: v.fixes}, span{start, end})
	})
	return f
}

// inklingThoughts returns Inkling's reasoning messages: <|content_thinking|>
// to the <|end_message|> that ends it (or to the end of the text).
func inklingThoughts(text string) []span {
	var out []span
	for pos := 0; pos < len(text); {
		i := strings.Index(text[pos:], inklingThought)
		if i < 0 {
			break
		}
		start := pos + i
		end := len(text)
		if j := strings.Index(text[start:], inklingEnd); j >= 0 {
			end = start + j + len(inklingEnd)
		}
		out = append(out, span{start, end})
		pos = end
	}
	return out
}

// isNameByte reports a byte isIdent allows in a tool name.
func isNameByte(c byte) bool {
	return c < 0x80 && isWordChar(c) || strings.IndexByte("-.:/", c) >= 0
}
