package textcalls

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/tapeloop/tapeloop/internal/jsoncoerce"
	"github.com/tapeloop/tapeloop/llm/repair"
)

// canonicalArgs turns a candidate's arguments into canonical JSON object text:
// repaired when raw, coerced to the schema when untyped. ok is false when they
// cannot become an object.
func canonicalArgs(rc rawCall, schema map[string]any) (args string, fixes []string, ok bool) {
	v := rc.args
	fixes = rc.fixes
	if rc.argsRaw {
		text, _ := v.(string)
		if strings.TrimSpace(text) == "" {
			v = map[string]any{}
		} else {
			d, more, ok := decodeRepaired(text)
			if !ok {
				return "", nil, false
			}
			v, fixes = d, append(append([]string(nil), fixes...), more...)
		}
	}
	if v == nil {
		v = map[string]any{}
	}
	obj, isObj := v.(map[string]any)
	if !isObj {
		return "", nil, false
	}
	if rc.untyped {
		obj = coerceObject(obj, schema)
	}
	b, err := marshal(obj)
	if err != nil {
		return "", nil, false
	}
	return b, fixes, true
}

// decodeRepaired repairs text and decodes it, keeping numbers as written.
func decodeRepaired(text string) (v any, fixes []string, ok bool) {
	out, fixes, err := repair.Repair(text)
	if err != nil {
		return nil, nil, false
	}
	v, ok = decode(out)
	return v, fixes, ok
}

// decode decodes JSON text with json.Number for numbers; trailing data fails.
func decode(text string) (any, bool) {
	v, err := jsoncoerce.Decode(text)
	return v, err == nil
}

// marshal writes v compactly without HTML escaping; map keys come out sorted.
func marshal(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// coerceObject coerces the untyped values of obj to the schema's types, the
// same way the tools registry coerces arguments (internal/jsoncoerce), except
// that JSON text standing for an object or array is repaired if need be.
//
// An untyped value "null" for a property whose schema types do not include
// string becomes null first, as engines convert it ("null" for an integer
// is no integer, and no string either).
func coerceObject(obj map[string]any, schema map[string]any) map[string]any {
	props, _ := schema["properties"].(map[string]any)
	for k, v := range obj {
		if v != "null" {
			continue
		}
		p, _ := props[k].(map[string]any)
		if t := jsoncoerce.Types(p); len(t) > 0 && !slices.Contains(t, "string") {
			obj[k] = nil
		}
	}
	jsoncoerce.Value(obj, schema, "", &jsoncoerce.Options{Decode: func(text string) (any, bool) {
		v, _, ok := decodeRepaired(text)
		return v, ok
	}})
	return obj
}

// validJSONNumber reports whether t is a number in JSON syntax.
func validJSONNumber(t string) bool {
	return t != "" && json.Valid([]byte(t)) && (t[0] == '-' || (t[0] >= '0' && t[0] <= '9'))
}

// matchBracket returns the index just past the bracket that closes the { or [ at
// text[i], skipping JSON strings; -1 when it is not closed.
func matchBracket(text string, i int) int {
	if i >= len(text) || (text[i] != '{' && text[i] != '[') {
		return -1
	}
	depth := 0
	inStr := false
	for j := i; j < len(text); j++ {
		c := text[j]
		if inStr {
			switch c {
			case '\\':
				j++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
		i++
	}
	return i
}
