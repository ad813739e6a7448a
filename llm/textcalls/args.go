package textcalls

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

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

// decode decodes JSON text with json.Number for numbers.
func decode(text string) (any, bool) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	if dec.More() {
		return nil, false
	}
	return v, true
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

// coerceObject coerces the string values of obj to the property types of schema.
func coerceObject(obj map[string]any, schema map[string]any) map[string]any {
	props, _ := schema["properties"].(map[string]any)
	if props == nil {
		return obj
	}
	for k, v := range obj {
		if ps, ok := props[k].(map[string]any); ok {
			obj[k] = coerce(v, ps, 0)
		}
	}
	return obj
}

// coerce converts an untyped value to what the schema says; anything that does not
// convert cleanly is left as it is.
func coerce(v any, schema map[string]any, depth int) any {
	if depth > 16 {
		return v
	}
	types := schemaTypes(schema)
	switch x := v.(type) {
	case string:
		if len(types) == 0 || contains(types, "string") {
			return x
		}
		t := strings.TrimSpace(x)
		for _, ty := range types {
			switch ty {
			case "integer":
				if _, err := strconv.ParseInt(t, 10, 64); err == nil {
					return json.Number(t)
				}
			case "number":
				if validJSONNumber(t) {
					return json.Number(t)
				}
			case "boolean":
				switch strings.ToLower(t) {
				case "true":
					return true
				case "false":
					return false
				}
			case "null":
				if t == "null" || t == "None" {
					return nil
				}
			case "object", "array":
				if d, _, ok := decodeRepaired(t); ok {
					if _, isObj := d.(map[string]any); isObj && ty == "object" {
						return coerce(d, schema, depth+1)
					}
					if _, isArr := d.([]any); isArr && ty == "array" {
						return coerce(d, schema, depth+1)
					}
				}
			}
		}
		return x
	case map[string]any:
		if props, ok := schema["properties"].(map[string]any); ok {
			for k, e := range x {
				if ps, ok := props[k].(map[string]any); ok {
					x[k] = coerce(e, ps, depth+1)
				}
			}
		}
		return x
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, e := range x {
				x[i] = coerce(e, items, depth+1)
			}
		}
		return x
	}
	return v
}

// schemaTypes returns the "type" of a schema as a list.
func schemaTypes(schema map[string]any) []string {
	switch t := schema["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
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
