package tools

import (
	"encoding/json"
	"reflect"
	"strings"
)

// directFields returns the JSON names that encoding/json certainly decodes
// into a field of the struct type t that holds no struct: the exported,
// non-embedded fields, by their tag name or field name, each name held by one
// field only. It returns
// nil when t is not a struct or a tag is one it does not read plainly, and
// then typed tools always decode through DecodeArguments.
func directFields(t reflect.Type) map[string]bool {
	if t.Kind() != reflect.Struct {
		return nil
	}
	count := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous || !f.IsExported() || holdsStruct(f.Type) {
			continue
		}
		tag, ok := f.Tag.Lookup("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case ok && tag == "-":
			continue
		case name == "":
			name = f.Name
		case !plainName(name):
			return nil
		}
		count[name]++
	}
	fields := map[string]bool{}
	for name, n := range count {
		if n == 1 {
			fields[name] = true
		}
	}
	return fields
}

// holdsStruct reports whether a value of type t may hold a struct, into
// which DecodeArguments would refuse unknown fields too.
func holdsStruct(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsStruct(t.Elem())
	case reflect.Map:
		return holdsStruct(t.Key()) || holdsStruct(t.Elem())
	}
	return false
}

// plainName reports whether a tag name is letters, digits and '_' only, a
// name encoding/json takes as written.
func plainName(s string) bool {
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// decodeKnown decodes args into v with json.Unmarshal when args is an object
// whose keys are all in fields: DecodeArguments would then find no unknown
// field, and both decode the same text with the same decoder, so they give
// the same value. It reports false, having perhaps written to v, when it did
// not decode (other keys, text it does not scan, or any error); the caller
// then decodes a fresh value with DecodeArguments, for its exact error.
func decodeKnown(args json.RawMessage, fields map[string]bool, v any) bool {
	if fields == nil || !keysIn(args, fields) {
		return false
	}
	return json.Unmarshal(args, v) == nil
}

// keysIn reports whether the text is a JSON object whose keys, written
// without escapes, are all in fields. Values are skipped, not checked:
// json.Unmarshal checks them.
func keysIn(s []byte, fields map[string]bool) bool {
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return false
	}
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return true
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return false
		}
		end := i + 1
		for end < len(s) && s[end] != '"' && s[end] != '\\' {
			end++
		}
		if end >= len(s) || s[end] != '"' || !fields[string(s[i+1:end])] {
			return false
		}
		i = skipSpace(s, end+1)
		if i >= len(s) || s[i] != ':' {
			return false
		}
		if i = skipValue(s, skipSpace(s, i+1)); i < 0 {
			return false
		}
		i = skipSpace(s, i)
		switch {
		case i < len(s) && s[i] == ',':
			i = skipSpace(s, i+1)
		case i < len(s) && s[i] == '}':
			return true
		default:
			return false
		}
	}
}

func skipSpace(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index after the value starting at i, or -1. It
// follows strings and nesting, nothing more.
func skipValue(s []byte, i int) int {
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			if i >= len(s) {
				return -1
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of the enclosing object
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
	}
	if depth != 0 {
		return -1
	}
	return i
}
