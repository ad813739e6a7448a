package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ErrInvalidSchema is wrapped by the error for a tool whose parameters schema
// cannot be compiled or does not describe an object.
var ErrInvalidSchema = errors.New("invalid parameters schema")

// defaultParameters is the schema of a tool that declares none.
var defaultParameters = json.RawMessage(`{"type":"object"}`)

// schema is a compiled parameters schema: the validator, and the decoded document
// that coercion walks.
type schema struct {
	raw       json.RawMessage
	doc       map[string]any
	validator *jsonschema.Schema
}

// compiled caches compiled schemas by their text. A compiled schema is
// immutable, and tools built per run (as a harness does) share a handful of
// schemas, so compiling each once per process saves most of a registration.
var compiled sync.Map // string(raw schema) -> *schema

func compileSchema(name string, raw json.RawMessage) (*schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = defaultParameters
	}
	if s, ok := compiled.Load(string(raw)); ok {
		return s.(*schema), nil
	}
	s, err := compileSchemaUncached(name, raw)
	if err != nil {
		return nil, err
	}
	compiled.Store(string(raw), s)
	return s, nil
}

func compileSchemaUncached(name string, raw json.RawMessage) (*schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%w for tool %q: %v", ErrInvalidSchema, name, err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w for tool %q: the schema must be a JSON object", ErrInvalidSchema, name)
	}
	if t, ok := obj["type"]; ok && t != "object" {
		return nil, fmt.Errorf("%w for tool %q: the arguments must be an object, the schema says type %v", ErrInvalidSchema, name, t)
	}
	c := jsonschema.NewCompiler()
	url := "tool:///" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("%w for tool %q: %v", ErrInvalidSchema, name, err)
	}
	v, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("%w for tool %q: %v", ErrInvalidSchema, name, err)
	}
	compact := new(bytes.Buffer)
	if err := json.Compact(compact, raw); err != nil {
		return nil, fmt.Errorf("%w for tool %q: %v", ErrInvalidSchema, name, err)
	}
	return &schema{raw: compact.Bytes(), doc: obj, validator: v}, nil
}

// FieldError is one failing field of a validation: its JSON pointer into the
// arguments ("" is the whole object) and what is wrong with it.
type FieldError struct {
	Path    string `json:"path" yaml:"path"`
	Message string `json:"message" yaml:"message"`
}

// validate returns every failing field, sorted by path and message, or nil.
func (s *schema) validate(v any) []FieldError {
	err := s.validator.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []FieldError{{Message: err.Error()}}
	}
	var out []FieldError
	seen := map[FieldError]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		fe := FieldError{Path: pointer(e.InstanceLocation), Message: e.ErrorKind.LocalizedString(printer)}
		if !seen[fe] {
			seen[fe] = true
			out = append(out, fe)
		}
	}
	walk(ve)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Message < out[j].Message
	})
	return out
}

func pointer(segments []string) string {
	if len(segments) == 0 {
		return ""
	}
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		s = strings.ReplaceAll(s, "~", "~0")
		b.WriteString(strings.ReplaceAll(s, "/", "~1"))
	}
	return b.String()
}

// describeFieldErrors renders field errors for the model, one per line.
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
