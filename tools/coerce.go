package tools

import "github.com/tapeloop/tapeloop/internal/jsoncoerce"

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

// coerce converts v towards the schema s (see internal/jsoncoerce), appending
// what it changed to *log. Values it cannot convert are left for the validator
// to report.
func coerce(v any, s map[string]any, path string, log *[]Coercion) any {
	return jsoncoerce.Value(v, s, path, &jsoncoerce.Options{
		Record: func(path, from, to string) { *log = append(*log, Coercion{Path: path, From: from, To: to}) },
	})
}
