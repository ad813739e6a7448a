// Package jsoncoerce converts decoded JSON values towards the types a JSON
// Schema asks for, fixing the common mistakes of models and the untyped values
// of text envelopes: "3" for 3, "true" for true, "None" for null, an object or
// array passed as JSON text, a number or boolean where a string is asked for.
// The tools registry and llm/textcalls both use it, so a value is coerced the
// same way wherever it comes from.
package jsoncoerce

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Options configures Value. A nil *Options is the zero value.
type Options struct {
	// Decode decodes the JSON text of a string that should be an object or an
	// array (numbers as json.Number); nil means strict decoding.
	Decode func(text string) (any, bool)
	// Record is called for every conversion, with the JSON pointer of the value
	// and the JSON types it went from and to; nil means none is recorded.
	Record func(path, from, to string)
}

// Value converts v, a decoded JSON value with numbers as json.Number, towards
// the schema s (nil: no conversion) and returns it; maps and slices are
// converted in place, object keys in sorted order. path is v's JSON pointer.
// What cannot be converted is left for validation to report. A schema that
// accepts strings never has a string converted.
func Value(v any, s map[string]any, path string, opts *Options) any {
	if s == nil {
		return v
	}
	if opts == nil {
		opts = &noOptions
	}
	segs := [8]string{path}
	w := walker{opts: opts}
	return w.value(v, s, segs[:1])
}

var noOptions Options

// walker converts one value with its options. The JSON pointer of the value
// being converted is a list of segments, the caller's path then the escaped
// keys and indexes below it, joined only when a conversion is recorded.
type walker struct {
	opts *Options
}

// pointer joins the segments of a JSON pointer.
func pointer(segs []string) string {
	if len(segs) == 1 {
		return segs[0]
	}
	n := len(segs) - 1
	for _, s := range segs {
		n += len(s)
	}
	b := make([]byte, 0, n)
	for i, s := range segs {
		if i > 0 {
			b = append(b, '/')
		}
		b = append(b, s...)
	}
	return string(b)
}

func (w *walker) record(segs []string, from, to string) {
	if w.opts.Record != nil {
		w.opts.Record(pointer(segs), from, to)
	}
}

func (w *walker) value(v any, s map[string]any, segs []string) any {
	if s == nil {
		return v
	}
	var buf [4]string
	want := appendTypes(buf[:0], s)
	if str, ok := v.(string); ok {
		if nv, to, ok := fromString(str, want, w.opts); ok {
			w.record(segs, "string", to)
			v = nv
		}
	} else if len(want) == 1 && want[0] == "string" {
		switch x := v.(type) {
		case json.Number:
			w.record(segs, "number", "string")
			return x.String()
		case bool:
			w.record(segs, "boolean", "string")
			return strconv.FormatBool(x)
		}
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		extra, _ := s["additionalProperties"].(map[string]any)
		var kbuf [16]string
		keys := kbuf[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			sub, _ := props[k].(map[string]any)
			if sub == nil {
				sub = extra
			}
			x[k] = w.value(x[k], sub, append(segs, EscapePointer(k)))
		}
	case []any:
		items, _ := s["items"].(map[string]any)
		for i := range x {
			x[i] = w.value(x[i], items, append(segs, strconv.Itoa(i)))
		}
	}
	return v
}

// fromString converts a string to the first of the wanted types it parses as.
func fromString(s string, want []string, opts *Options) (any, string, bool) {
	if slices.Contains(want, "string") {
		return nil, "", false
	}
	trimmed := strings.TrimSpace(s)
	for _, t := range want {
		switch t {
		case "integer":
			if _, err := strconv.ParseInt(trimmed, 10, 64); err == nil {
				return json.Number(trimmed), t, true
			}
			if f, err := strconv.ParseFloat(trimmed, 64); err == nil && f == float64(int64(f)) && !strings.ContainsAny(trimmed, "eE") {
				return json.Number(strconv.FormatInt(int64(f), 10)), t, true
			}
		case "number":
			if _, err := strconv.ParseFloat(trimmed, 64); err == nil && json.Valid([]byte(trimmed)) {
				return json.Number(trimmed), t, true
			}
		case "boolean":
			switch strings.ToLower(trimmed) {
			case "true":
				return true, t, true
			case "false":
				return false, t, true
			}
		case "null":
			if trimmed == "null" || trimmed == "None" {
				return nil, t, true
			}
		case "object", "array":
			open := "{"
			if t == "array" {
				open = "["
			}
			if !strings.HasPrefix(trimmed, open) {
				continue
			}
			if v, ok := opts.decode(trimmed); ok {
				if _, isObj := v.(map[string]any); isObj == (t == "object") {
					return v, t, true
				}
			}
		}
	}
	return nil, "", false
}

func (o *Options) decode(text string) (any, bool) {
	if o.Decode != nil {
		return o.Decode(text)
	}
	v, err := Decode(text)
	return v, err == nil
}

// Decode decodes exactly one JSON value, numbers as json.Number; trailing
// data is an error.
//
// A text with no number is decoded by json.Unmarshal, which gives the same
// value (no float64 to keep exact) for a fraction of what a json.Decoder
// allocates (its struct and a 512-byte buffer, per call: most of what
// preparing a tool call allocates). Anything else, and every error, takes
// the decoder.
func Decode(text string) (any, error) {
	if !HasNumber(text) {
		var v any
		if json.Unmarshal([]byte(text), &v) == nil {
			return v, nil
		}
	}
	return decodeNumbers(text)
}

// decodeNumbers is Decode by a json.Decoder, numbers as json.Number.
func decodeNumbers(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errTrailingData
	}
	return v, nil
}

var errTrailingData = errors.New("unexpected data after the JSON value")

// HasNumber reports whether the JSON text has a number outside its
// strings: a '-' or a digit there. It reads the text only as far as
// strings go, so an invalid text may be reported to have one.
func HasNumber[T string | []byte](text T) bool {
	inString, escaped := false, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '-' || c >= '0' && c <= '9':
			return true
		}
	}
	return false
}

// Types returns the types a schema names in "type" (a string or a list).
func Types(s map[string]any) []string {
	return appendTypes(nil, s)
}

// appendTypes appends the types s names in "type" to dst.
func appendTypes(dst []string, s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return append(dst, t)
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok {
				dst = append(dst, str)
			}
		}
	}
	return dst
}

// EscapePointer escapes a key for use as a JSON pointer segment.
func EscapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
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
