package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/tapeloop/tapeloop/internal/jsoncoerce"
	"github.com/tapeloop/tapeloop/internal/jsonschema"
)

// ErrInvalidSchema is wrapped by the error for a tool whose parameters schema
// cannot be compiled or does not describe an object.
var ErrInvalidSchema = errors.New("invalid parameters schema")

// defaultParameters is the schema of a tool that declares none.
var defaultParameters = json.RawMessage(`{"type":"object"}`)

// Schema is a compiled JSON Schema: the validator, and the decoded document
// that coercion walks. It is immutable and safe for concurrent use.
//
// The validator is tapeloop's own (internal/jsonschema): Draft 2020-12 by
// default, 2019-09, 7, 6 or 4 when the schema's $schema names it; "format" is
// an annotation except under the drafts before 2019-09; references must stay
// within the schema.
type Schema struct {
	raw       json.RawMessage
	doc       map[string]any
	validator *jsonschema.Schema
}

// compiled caches compiled schemas by their text. A compiled schema is
// immutable, and tools built per run (as a harness does) share a handful of
// schemas, so compiling each once per process saves most of a registration.
var compiled sync.Map // string(raw schema) -> *Schema

// CompileSchema compiles a JSON Schema document, which must be a JSON object.
// A schema that is not valid against its draft's meta-schema, or that refers
// to another document, is an error saying where. Schemas are cached by their
// text, so compiling the same schema again is cheap.
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
	v, err := jsonschema.Compile(doc)
	if err != nil {
		return nil, err
	}
	compact := new(bytes.Buffer)
	if err := json.Compact(compact, raw); err != nil {
		return nil, err
	}
	s := &Schema{raw: compact.Bytes(), doc: obj, validator: v}
	compiled.Store(string(raw), s)
	return s, nil
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
// ParseJSON returns them). Where an applicator fails (anyOf, oneOf, allOf,
// $ref), the failures of its subschemas are listed instead.
func (s *Schema) Validate(v any) []FieldError {
	errs := s.validator.Validate(v)
	if errs == nil {
		return nil
	}
	out := make([]FieldError, len(errs))
	for i, e := range errs {
		out[i] = FieldError{Path: e.Path, Message: e.Message}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Message < out[j].Message
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
