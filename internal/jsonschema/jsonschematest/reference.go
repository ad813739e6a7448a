// Package jsonschematest validates with github.com/santhosh-tekuri/jsonschema/v6,
// the library tapeloop's validator replaced, configured as tapeloop
// configured it, so that tests can hold the two together. Only tests import
// it: the production binaries do not link the library.
package jsonschematest

import (
	"errors"
	"slices"
	"sort"
	"strings"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Failure is one leaf failure: a JSON pointer into the instance and a message.
type Failure struct {
	Path    string
	Message string
}

var printer = message.NewPrinter(language.English)

// Validate compiles doc (a decoded schema, numbers as json.Number) and
// validates v against it. It returns the compile error, or the leaf failures
// in English, sets of names sorted, the list sorted by path and message and
// de-duplicated, as tapeloop's tools.Schema.Validate reported them: nil when
// v is valid.
func Validate(doc, v any) ([]Failure, error) {
	s, err := Compile(doc)
	if err != nil {
		return nil, err
	}
	return s.Validate(v), nil
}

// Schema is a schema compiled by santhosh-tekuri/jsonschema.
type Schema struct{ s *santhosh.Schema }

// Compile compiles a decoded schema document.
func Compile(doc any) (*Schema, error) {
	c := santhosh.NewCompiler()
	const url = "mem:///schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return &Schema{s}, nil
}

// Validate returns the failures of v as the package's Validate does.
func (s *Schema) Validate(v any) []Failure {
	err := s.s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *santhosh.ValidationError
	if !errors.As(err, &ve) {
		return []Failure{{Message: err.Error()}}
	}
	var out []Failure
	var walk func(e *santhosh.ValidationError)
	walk = func(e *santhosh.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		switch k := e.ErrorKind.(type) {
		case *kind.AdditionalProperties:
			slices.Sort(k.Properties)
		case *kind.Required:
			slices.Sort(k.Missing)
		case *kind.Dependency:
			slices.Sort(k.Missing)
		case *kind.DependentRequired:
			slices.Sort(k.Missing)
		}
		var p strings.Builder
		for _, s := range e.InstanceLocation {
			p.WriteString("/" + strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
		}
		out = append(out, Failure{p.String(), e.ErrorKind.LocalizedString(printer)})
	}
	walk(ve)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Message < out[j].Message
	})
	return slices.Compact(out)
}

// Printer is the English printer santhosh's messages were rendered with.
func Printer() *message.Printer { return printer }
