package jsoncoerce

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// maxFastDepth is the deepest nesting decodeFast handles; deeper text goes
// to encoding/json, which has its own limit and error.
const maxFastDepth = 64

// decodeFast decodes the common shapes of argument text without
// encoding/json's decoder: objects, arrays, strings without escapes, numbers
// and literals, as exactly one value with optional surrounding space. It
// returns what Decode's encoding/json path returns for the same text, and ok
// false for anything else (escapes, invalid UTF-8, deep nesting, any syntax
// error), which that path then decodes or reports.
func decodeFast(text string) (v any, ok bool) {
	d := fastDecoder{s: text}
	d.space()
	if v, ok = d.value(0); !ok {
		return nil, false
	}
	d.space()
	return v, d.i == len(d.s)
}

type fastDecoder struct {
	s string
	i int
}

func (d *fastDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *fastDecoder) value(depth int) (any, bool) {
	if d.i >= len(d.s) || depth > maxFastDepth {
		return nil, false
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		if s, ok := d.string(); ok {
			return s, true
		}
		return nil, false
	case c == '-' || isDigit(c):
		return d.number()
	}
	for _, lit := range [...]struct {
		text  string
		value any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(d.s)-d.i >= len(lit.text) && d.s[d.i:d.i+len(lit.text)] == lit.text {
			d.i += len(lit.text)
			return lit.value, true
		}
	}
	return nil, false
}

func (d *fastDecoder) object(depth int) (any, bool) {
	d.i++ // {
	m := map[string]any{}
	d.space()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return m, true
	}
	for {
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, false
		}
		k, ok := d.string()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.space()
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		m[k] = v // a repeated key: the last wins, as in encoding/json
		d.space()
		if d.i >= len(d.s) {
			return nil, false
		}
		switch d.s[d.i] {
		case ',':
			d.i++
			d.space()
		case '}':
			d.i++
			return m, true
		default:
			return nil, false
		}
	}
}

func (d *fastDecoder) array(depth int) (any, bool) {
	d.i++ // [
	a := []any{}
	d.space()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		v, ok := d.value(depth + 1)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.s) {
			return nil, false
		}
		switch d.s[d.i] {
		case ',':
			d.i++
			d.space()
		case ']':
			d.i++
			return a, true
		default:
			return nil, false
		}
	}
}

// string reads a string of valid UTF-8 without control characters whose
// escapes, if any, are of one character (\n, \", ...; not \u).
func (d *fastDecoder) string() (string, bool) {
	start := d.i + 1
	ascii, escaped := true, false
	j := start
	for ; ; j++ {
		if j >= len(d.s) {
			return "", false
		}
		c := d.s[j]
		if c == '"' {
			break
		}
		switch {
		case c == '\\':
			if j+1 >= len(d.s) || unescape(d.s[j+1]) == 0 {
				return "", false
			}
			escaped = true
			j++
		case c < 0x20:
			return "", false
		case c >= 0x80:
			ascii = false
		}
	}
	raw := d.s[start:j]
	if !ascii && !utf8.ValidString(raw) {
		return "", false
	}
	d.i = j + 1
	if !escaped {
		return raw, true
	}
	b := make([]byte, 0, len(raw))
	for k := 0; k < len(raw); k++ {
		if raw[k] == '\\' {
			k++
			b = append(b, unescape(raw[k]))
			continue
		}
		b = append(b, raw[k])
	}
	return string(b), true
}

// unescape returns the character the one-character escape \c stands for, or
// 0 when there is none (\u escapes included).
func unescape(c byte) byte {
	switch c {
	case '"', '\\', '/':
		return c
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return 0
}

// number reads a JSON number literal, kept as its text.
func (d *fastDecoder) number() (any, bool) {
	end, ok := NumberEnd(d.s, d.i)
	if !ok {
		return nil, false
	}
	n := json.Number(d.s[d.i:end])
	d.i = end
	return n, true
}

// NumberEnd reads the JSON number literal that starts at s[i] and returns the
// index after it, or false when no literal starts there.
func NumberEnd(s string, i int) (int, bool) {
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return 0, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i == len(s) || !isDigit(s[i]) {
			return 0, false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i == len(s) || !isDigit(s[i]) {
			return 0, false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	return i, true
}

// TypeName names the JSON type of a decoded value for a message: "null",
// "a boolean", "a number", "a string", "an array", "an object".
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64, float32, int, int64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
