package evalrun

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// jsonKeys returns the JSON keys of the values' struct types, nested
// structs' included (through pointers, slices and maps), each once.
func jsonKeys(values ...any) []string {
	var keys []string
	seen := map[string]bool{}
	visited := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || visited[typ] {
			return
		}
		visited[typ] = true
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name != "" && !seen[name] {
				seen[name] = true
				keys = append(keys, name)
			}
			walk(f.Type)
		}
	}
	for _, v := range values {
		walk(reflect.TypeOf(v))
	}
	return keys
}

func TestJSONKeys(t *testing.T) {
	type inner struct {
		X int `json:"x"`
		Y int `json:"-"`
	}
	type outer struct {
		A  string   `json:"a,omitempty"`
		In []*inner `json:"in"`
		M  map[string]inner
		p  int
	}
	if got := strings.Join(jsonKeys(outer{}), " "); got != "a in x" {
		t.Errorf("jsonKeys = %q; want \"a in x\"", got)
	}
}

// docBlock returns the fenced block of the doc at path whose text holds
// marker; lang is the block's language ("" for none).
func docBlock(t *testing.T, path, lang, marker string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var body strings.Builder
	in := false
	for _, line := range strings.SplitAfter(string(data), "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```"+lang:
			in = true
			body.Reset()
		case in && strings.TrimSpace(line) == "```":
			in = false
			if strings.Contains(body.String(), marker) {
				return body.String()
			}
		case in:
			body.WriteString(line)
		}
	}
	t.Fatalf("%s has no ```%s block holding %q", path, lang, marker)
	return ""
}

// docNamesJSONKeys fails for each JSON key of the types (structs, through
// pointers, slices and nested structs) that the doc at path does not name
// as `key`.
func docNamesJSONKeys(t *testing.T, path string, values ...any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range jsonKeys(values...) {
		if !bytes.Contains(data, []byte("`"+key+"`")) {
			t.Errorf("%s does not document the JSON key `%s`", path, key)
		}
	}
}

// checkDocJSON checks the JSON document got, a command's output, against
// the doc at path: the doc's json block holding "format": format is got
// byte for byte, it decodes into a value of into's type with no key left
// over, and the doc names every key of that type.
func checkDocJSON(t *testing.T, path, format string, got []byte, into any) {
	t.Helper()
	want := docBlock(t, path, "json", `"format": "`+format+`"`)
	dec := json.NewDecoder(strings.NewReader(want))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		t.Errorf("%s: the documented %s does not decode: %v", path, format, err)
	}
	docNamesJSONKeys(t, path, into)
	if string(got) != want {
		t.Errorf("the command writes:\n%s\n%s shows:\n%s", got, path, want)
	}
}

// absDoc is the absolute path of a doc, for a test that changes directory.
func absDoc(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
