package tools

import (
	"context"
	"encoding/json"
)

// Tool is something the model can call. Execute receives the call with its
// arguments already parsed, repaired if needed, coerced and validated against
// Spec().Parameters. A failure the model should read is a Result with Failure
// set (or an error, which becomes one); Execute must honour ctx.
type Tool interface {
	Spec() Spec
	Execute(ctx context.Context, call Call) (*Result, error)
}

// Call is one validated call of a tool.
type Call struct {
	// ID is the model's id of the call.
	ID string
	// Name is the tool's name.
	Name string
	// Arguments is canonical JSON of the validated, coerced arguments; it is
	// always an object.
	Arguments json.RawMessage
}

// Decode decodes the call's arguments into v, rejecting unknown fields. Its error
// is a validation error the model can act on.
func (c Call) Decode(v any) error { return DecodeArguments(c.Arguments, v) }

// Availability is implemented by tools that are not always available. The
// registry hides an unavailable tool from Definitions and answers a call to it
// with an unavailable result carrying the reason.
type Availability interface {
	Available() (ok bool, reason string)
}

// ArgumentPreparer is implemented by tools that adjust the raw argument text
// before it is parsed and validated: fill a default, tolerate a provider quirk.
// The returned text replaces raw.
type ArgumentPreparer interface {
	PrepareArguments(raw string) string
}

// Repairer repairs argument text that is not valid JSON. Repair returns valid
// JSON and the names of the fixes it applied, in order, or an error whose text
// tells the model what to fix. llm/repair provides the standard cascade.
type Repairer interface {
	Repair(raw string) (fixed string, fixes []string, err error)
}
