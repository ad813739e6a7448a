package evalrun

import (
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
