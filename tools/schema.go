package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tapeloop/tapeloop/internal/jsoncoerce"
)

// ErrInvalidSchema is wrapped by the error for a tool whose parameters schema
// cannot be compiled or does not describe an object.
var ErrInvalidSchema = errors.New("invalid parameters schema")

// defaultParameters is the schema of a tool that declares none.
var defaultParameters = json.RawMessage(`{"type":"object"}`)

// supportedDrafts are the $schema values a schema may name; none means Draft
// 2020-12.
var supportedDrafts = []string{
	"https://json-schema.org/draft/2020-12/schema",
	"http://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft-07/schema#",
}

// Schema is a compiled JSON Schema: the validator, and the decoded document
// that coercion walks. It is immutable and safe for concurrent use.
//
// Validation is github.com/google/jsonschema-go's: Draft 2020-12 by default,
// Draft 7 when the schema's $schema names it; "format" is an annotation;
// references must stay within the schema. That library stops at the first
// failure, so a value that fails is validated again piece by piece to report
// every failure (see collect.go).
type Schema struct {
	raw      json.RawMessage
	doc      map[string]any
	resolved *jsonschema.Resolved

	split  sync.Once
	pieces []piece // built on the first failing validation; nil if the schema cannot be split
}

// compiled caches compiled schemas by their text. A compiled schema is
// immutable, and tools built per run (as a harness does) share a handful of
// schemas, so compiling each once per process saves most of a registration.
var compiled sync.Map // string(raw schema) -> *Schema

// CompileSchema compiles a JSON Schema document, which must be a JSON object.
// A schema that is not valid against its draft's meta-schema, that refers to
// another document or names a $schema other than Draft 2020-12 or 7 is an
// error saying why. Schemas are cached by their text, so
// compiling the same schema again is cheap.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	if s, ok := compiled.Load(string(raw)); ok {
		return s.(*Schema), nil
	}
	doc, err := jsoncoerce.Decode(string(raw))
	if err != nil {
		return nil, err
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, errors.New("the schema must be a JSON object")
	}
	if d, ok := obj["$schema"]; ok {
		if d, _ := d.(string); !slices.Contains(supportedDrafts, d) {
			return nil, fmt.Errorf("$schema %v is not supported: Draft 2020-12 (the default) and Draft 7 are", obj["$schema"])
		}
	}
	if err := checkMetaschema(obj); err != nil {
		return nil, err
	}
	r, err := resolve(raw)
	if err != nil {
		return nil, err
	}
	compact := new(bytes.Buffer)
	if err := json.Compact(compact, raw); err != nil {
		return nil, err
	}
	s := &Schema{raw: compact.Bytes(), doc: obj, resolved: r}
	compiled.Store(string(raw), s)
	return s, nil
}

// resolve decodes and resolves a schema document for validation.
func resolve(raw []byte) (*jsonschema.Resolved, error) {
	var js jsonschema.Schema
	if err := json.Unmarshal(raw, &js); err != nil {
		return nil, err
	}
	return js.Resolve(nil)
}

// JSON returns the schema as compact JSON.
func (s *Schema) JSON() json.RawMessage { return s.raw }

// compileParameters compiles a tool's parameters schema, which must describe
// an object; nil means any object.
func compileParameters(name string, raw json.RawMessage) (*Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = defaultParameters
	}
	s, err := CompileSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("%w for tool %q: %v", ErrInvalidSchema, name, err)
	}
	if t, ok := s.doc["type"]; ok && t != "object" {
		return nil, fmt.Errorf("%w for tool %q: the arguments must be an object, the schema says type %v", ErrInvalidSchema, name, t)
	}
	return s, nil
}

// FieldError is one failing field of a validation: its JSON pointer into the
// arguments ("" is the whole object) and what is wrong with it.
type FieldError struct {
	Path    string `json:"path" yaml:"path"`
	Message string `json:"message" yaml:"message"`
}

// Validate returns every failing field of v, sorted by path and message, or
// nil when v is valid. v is a decoded JSON value, numbers as json.Number (as
// ParseJSON returns them). A failure is reported at the object property
// holding it (see collect.go for how far down that goes).
func (s *Schema) Validate(v any) []FieldError {
	v, _ = floatNumbers(v)
	err := s.resolved.Validate(v)
	if err == nil {
		return nil
	}
	out := s.collect(v)
	if len(out) == 0 {
		// The pieces pass where the whole fails, or the schema could not
		// be split: report the validator's own first failure.
		out = []FieldError{{Message: message(err)}}
	}
	slices.SortFunc(out, func(a, b FieldError) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return slices.Compact(out)
}

// describeFieldErrors renders a tool's field errors for the model as
// "path: message" items joined by "; ".
func describeFieldErrors(errs []FieldError) string {
	var b strings.Builder
	for i, e := range errs {
		if i > 0 {
			b.WriteString("; ")
		}
		p := e.Path
		if p == "" {
			p = "(arguments)"
		}
		b.WriteString(p)
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}
