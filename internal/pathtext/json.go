package pathtext

import (
	"bytes"
	"encoding/json"
	"strings"
)

// ReplaceJSON is ReplaceEscaped for a JSON text s (a request body, a tool
// call's arguments): each match becomes name as a JSON string holds it.
// A string whose value holds the path escaped in turn (JSON written into a
// string, as a Chat Completions body holds a call's arguments) is matched
// inside too, and, when it changes, written anew with name as its value
// holds it (Go's encoding, HTML characters unescaped). s itself when
// nothing matches; a text that is not JSON gets the first part only.
func ReplaceJSON(s, path, name string) string {
	inner := JSONInner(name)
	s = ReplaceEscaped(s, path, inner, inner)
	if !strings.Contains(s, `\`) || !json.Valid([]byte(s)) {
		return s
	}
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		end := stringEnd(s, i)
		tok := s[i:end]
		if strings.IndexByte(tok, '\\') >= 0 {
			var v string
			if json.Unmarshal([]byte(tok), &v) == nil {
				if w := ReplaceEscaped(v, path, name, inner); w != v {
					b.WriteString(s[done:i])
					b.WriteByte('"')
					b.WriteString(JSONInner(w))
					b.WriteByte('"')
					done = end
				}
			}
		}
		i = end - 1
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// stringEnd returns where the JSON string starting at s[i] (its opening
// quote) ends, after its closing quote; s is valid JSON.
func stringEnd(s string, i int) int {
	for k := i + 1; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case '"':
			return k + 1
		}
	}
	return len(s)
}

// jsonInner is s as it stands inside a JSON string (Go's encoding, HTML
// characters unescaped).
func JSONInner(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}
