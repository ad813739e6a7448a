package tools

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Coercion records one argument the registry converted to the type its schema
// asks for, fixing a common model mistake: "3" for 3, "true" for true, an object
// or array passed as a JSON string, a number where a string was asked for.
type Coercion struct {
	// Path is the JSON pointer of the converted value ("/count", "/items/0").
	Path string `json:"path" yaml:"path"`
	// From and To are JSON types: string, number, integer, boolean, object, array.
	From string `json:"from" yaml:"from"`
	To   string `json:"to" yaml:"to"`
}

// coerce converts v towards the schema s, returning the converted value and
// appending what it changed to *log. Values it cannot convert are left for the
// validator to report.
func coerce(v any, s map[string]any, path string, log *[]Coercion) any {
	if s == nil {
		return v
	}
	if str, ok := v.(string); ok {
		if nv, to, ok := coerceString(str, schemaTypes(s)); ok {
			*log = append(*log, Coercion{Path: path, From: "string", To: to})
			v = nv
		}
	} else if want := schemaTypes(s); len(want) == 1 && want[0] == "string" {
		switch x := v.(type) {
		case json.Number:
			*log = append(*log, Coercion{Path: path, From: "number", To: "string"})
			return x.String()
		case bool:
			*log = append(*log, Coercion{Path: path, From: "boolean", To: "string"})
			return strconv.FormatBool(x)
		}
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		extra, _ := s["additionalProperties"].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(x)) {
			sub, _ := props[k].(map[string]any)
			if sub == nil {
				sub = extra
			}
			x[k] = coerce(x[k], sub, path+"/"+escapePointer(k), log)
		}
	case []any:
		items, _ := s["items"].(map[string]any)
		for i := range x {
			x[i] = coerce(x[i], items, path+"/"+strconv.Itoa(i), log)
		}
	}
	return v
}

// coerceString converts a string to the first of the wanted types it parses as.
// A schema that accepts strings gets no conversion.
func coerceString(s string, want []string) (any, string, bool) {
	for _, t := range want {
		if t == "string" {
			return nil, "", false
		}
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
			if trimmed == "null" {
				return nil, t, true
			}
		case "object", "array":
			if (t == "object" && strings.HasPrefix(trimmed, "{")) || (t == "array" && strings.HasPrefix(trimmed, "[")) {
				if v, err := decodeJSON([]byte(trimmed)); err == nil {
					return v, t, true
				}
			}
		}
	}
	return nil, "", false
}

// schemaTypes returns the types a schema names in "type" (a string or a list).
func schemaTypes(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			if str, ok := x.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// decodeJSON decodes one JSON value, keeping numbers exact, and rejects
// trailing data.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
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
