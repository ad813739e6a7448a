package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Func adapts a function to the Tool interface. The function receives the call
// with validated arguments; use Call.Decode for typed access.
func Func(spec Spec, fn func(ctx context.Context, call Call) (*Result, error)) Tool {
	return &funcTool{spec: spec, fn: fn}
}

type funcTool struct {
	spec Spec
	fn   func(ctx context.Context, call Call) (*Result, error)
}

func (t *funcTool) Spec() Spec { return t.spec }

func (t *funcTool) Execute(ctx context.Context, call Call) (*Result, error) { return t.fn(ctx, call) }

// New builds a tool from a typed function. It does for you:
//   - infers the parameters schema from In (struct fields by their json names;
//     fields without omitempty/omitzero are required; unknown properties are
//     refused; a `jsonschema:"..."` tag is the field's description), unless
//     spec.Parameters is already set;
//   - decodes the validated, coerced arguments into a fresh In for every call;
//   - turns a decoding problem into a validation result naming the field.
//
// In must be a struct type (or a pointer-free type whose schema is an object).
// The error reports a type that cannot be described as a JSON Schema object.
func New[In any](spec Spec, fn func(ctx context.Context, in In) (*Result, error)) (Tool, error) {
	if spec.Parameters == nil {
		raw, err := inferSchema[In]()
		if err != nil {
			return nil, fmt.Errorf("inferring the schema of tool %q from %T: %w", spec.Name, *new(In), err)
		}
		spec.Parameters = raw
	}
	if _, err := compileParameters(spec.Name, spec.Parameters); err != nil {
		return nil, err
	}
	return &typedTool[In]{spec: spec, fn: fn}, nil
}

// MustNew is New for tools known to be valid; it panics with the reason
// otherwise. Use it at program start, where a bad tool is a programming error.
func MustNew[In any](spec Spec, fn func(ctx context.Context, in In) (*Result, error)) Tool {
	t, err := New(spec, fn)
	if err != nil {
		panic("tools: " + err.Error())
	}
	return t
}

type typedTool[In any] struct {
	spec Spec
	fn   func(ctx context.Context, in In) (*Result, error)
}

func (t *typedTool[In]) Spec() Spec { return t.spec }

func (t *typedTool[In]) Execute(ctx context.Context, call Call) (*Result, error) {
	var in In
	if err := call.Decode(&in); err != nil {
		return ValidationFailure(err.Error(), "send arguments that match the tool's schema"), nil
	}
	return t.fn(ctx, in)
}

// inferred caches the schema inferred from each argument type: inference and
// encoding cost more than the rest of building a tool, and a harness builds the
// same tools for every run.
var inferred sync.Map // reflect.Type -> json.RawMessage

// inferSchema returns the JSON Schema of In, as JSON.
func inferSchema[In any]() (json.RawMessage, error) {
	t := reflect.TypeFor[In]()
	if raw, ok := inferred.Load(t); ok {
		return raw.(json.RawMessage), nil
	}
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	inferred.Store(t, json.RawMessage(raw))
	return raw, nil
}
