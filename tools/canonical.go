package tools

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/tapeloop/tapeloop/internal/jsoncoerce"
)

// canonicalJSON returns json.Marshal's encoding of v, a decoded JSON value
// (maps, slices, strings, json.Number, booleans and nil): object keys sorted,
// no insignificant space, strings escaped as json.Marshal escapes them. It
// writes the common shapes itself, byte for byte as json.Marshal would, and
// hands anything else to json.Marshal.
func canonicalJSON(v any) ([]byte, error) {
	if out, ok := appendCanonical(make([]byte, 0, 64), v); ok {
		return out, nil
	}
	return json.Marshal(v)
}

// appendCanonical appends the encoding of v to dst; ok is false when v holds
// something it does not encode itself (dst is then to be discarded).
func appendCanonical(dst []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case bool:
		return strconv.AppendBool(dst, x), true
	case json.Number:
		if !validNumber(string(x)) {
			return dst, false // json.Marshal reports the error
		}
		return append(dst, x...), true
	case string:
		return appendString(dst, x), true
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendCanonical(dst, e); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case map[string]any:
		var buf [16]string
		keys := buf[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, k)
			dst = append(dst, ':')
			var ok bool
			if dst, ok = appendCanonical(dst, x[k]); !ok {
				return dst, false
			}
		}
		return append(dst, '}'), true
	}
	return dst, false
}

// appendString appends s quoted as json.Marshal quotes it: printable ASCII
// other than " \ < > & is written as is, anything else goes through
// json.Marshal (control characters, HTML characters, non-ASCII, invalid UTF-8).
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			quoted, _ := json.Marshal(s) // a string always encodes
			return append(dst, quoted...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// validNumber reports whether s is a JSON number literal.
func validNumber(s string) bool {
	end, ok := jsoncoerce.NumberEnd(s, 0)
	return ok && end == len(s)
}
