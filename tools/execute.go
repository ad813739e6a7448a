package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tapeloop/tapeloop/internal/jsoncoerce"
	"github.com/tapeloop/tapeloop/llm"
)

// Execution is everything the registry did with one call: the call as emitted,
// the arguments as executed, the repairs and coercions applied, and the result.
type Execution struct {
	// Call is the call exactly as the model emitted it.
	Call llm.ToolCall
	// Arguments is canonical JSON of the arguments as executed (after repair and
	// coercion). Nil when they could not be parsed.
	Arguments json.RawMessage
	// Repairs names the repair fixes applied to the argument text, in order.
	Repairs []string
	// Coercions lists the values converted to their schema's type.
	Coercions []Coercion
	// ArgumentsUnchanged is set when Arguments is the canonical form of the
	// call's own argument text, parsed strictly: not empty, not rewritten by an
	// ArgumentPreparer, not repaired, nothing coerced. The two are then equal
	// as JSON values. False says nothing either way.
	ArgumentsUnchanged bool
	// Result is the outcome; never nil once the call has been executed or refused.
	Result *Result
}

// Prepared is a call that has been looked up, parsed, repaired, coerced and
// validated but not yet run. When preparation failed, Result holds the failure
// (not_found, unavailable or validation) and Run must not be called.
type Prepared struct {
	Execution
	// Spec is the spec of the called tool; zero when the tool was not found.
	Spec Spec
	tool Tool
}

// Ready reports whether the call passed preparation and can be run.
func (p *Prepared) Ready() bool { return p.Result == nil && p.tool != nil }

// Prepare looks the call's tool up and turns its raw argument text into
// validated arguments: the tool's ArgumentPreparer first, then strict JSON
// parsing, the repairer only when that fails, coercion to the schema, and
// validation that reports every failing field at once. A text that parsed
// strictly and was valid for the same registration of the tool before is
// prepared from what the registration remembers of it, with the same result
// (see memo.go).
func (s *Snapshot) Prepare(call llm.ToolCall) *Prepared {
	p := &Prepared{Execution: Execution{Call: call}}
	e, ok := s.byName[call.Name]
	if !ok {
		p.Result = Failf(KindNotFound, "no tool named %q; %s", call.Name, s.availableNames())
		return p
	}
	p.Spec = e.spec
	if ok, reason := available(e.tool); !ok {
		if reason == "" {
			reason = "no reason given"
		}
		p.Result = Failf(KindUnavailable, "tool %s is not available now: %s", call.Name, reason)
		return p
	}
	raw := call.Arguments
	if prep, ok := e.tool.(ArgumentPreparer); ok {
		raw = prep.PrepareArguments(raw)
	}
	if a, ok := e.memo.remembered(raw); ok {
		a.apply(p)
		p.ArgumentsUnchanged = raw == call.Arguments && len(p.Coercions) == 0 && strings.TrimSpace(raw) != ""
		p.tool = e.tool
		return p
	}
	value, repairs, strict, failure := s.parse(call.Name, raw)
	p.Repairs = repairs
	if failure != nil {
		p.Result = failure
		return p
	}
	obj, isObject := value.(map[string]any)
	if !isObject {
		p.Result = ValidationFailure(
			fmt.Sprintf("the arguments of %s must be a JSON object, got %s", call.Name, jsoncoerce.TypeName(value)),
			"pass the arguments as an object, for example {\"name\": value}")
		return p
	}
	value = coerce(obj, e.schema.doc, "", &p.Coercions)
	p.ArgumentsUnchanged = raw == call.Arguments && len(repairs) == 0 && len(p.Coercions) == 0 &&
		strings.TrimSpace(raw) != ""
	canonical, err := json.Marshal(value)
	if err != nil {
		p.Result = Failf(KindValidation, "the arguments of %s cannot be encoded: %v", call.Name, err)
		return p
	}
	p.Arguments = canonical
	if errs := e.schema.Validate(value); len(errs) > 0 {
		fields := describeFieldErrors(errs)
		p.Result = ValidationFailure(
			fmt.Sprintf("invalid arguments for %s: %s", call.Name, fields),
			fmt.Sprintf("correct these fields to match the schema of %s and call it again", call.Name))
		p.Result.Details = map[string]string{"fields": fields}
		return p
	}
	if strict {
		e.memo.remember(raw, canonical, p.Coercions)
	}
	p.tool = e.tool
	return p
}

// parse decodes the argument text with ParseJSON; empty text means no
// arguments. strict says the text parsed as it is, without the repairer. A
// failure is a validation result for the model.
func (s *Snapshot) parse(name, raw string) (v any, fixes []string, strict bool, failure *Result) {
	if strings.TrimSpace(raw) == "" {
		return map[string]any{}, nil, true, nil
	}
	if v, err := jsoncoerce.Decode(raw); err == nil {
		return v, nil, true, nil
	}
	v, fixes, err := ParseJSON(raw, s.repairer)
	if err != nil {
		fix := "re-emit the call with the arguments as one valid JSON object"
		if errors.Is(err, errNotRepaired) {
			fix = "" // the repairer's message already says what to fix
		}
		return nil, fixes, false, ValidationFailure(fmt.Sprintf("the arguments of %s are %v", name, err), fix)
	}
	return v, fixes, false, nil
}

// errNotRepaired marks a ParseJSON error that comes from the repairer.
var errNotRepaired = errors.New("could not be repaired")

// ParseJSON decodes one JSON value from text, numbers kept exact as
// json.Number: strictly first, and only when that fails and rep is not nil,
// through rep, returning the fixes it applied. Trailing data is an error. The
// error reads "not valid JSON: ..." or "not valid JSON and could not be
// repaired: <the repairer's message>".
func ParseJSON(text string, rep Repairer) (any, []string, error) {
	v, err := jsoncoerce.Decode(text)
	if err == nil {
		return v, nil, nil
	}
	if rep == nil {
		return nil, nil, fmt.Errorf("not valid JSON: %w", err)
	}
	fixed, fixes, rerr := rep.Repair(text)
	if rerr != nil {
		return nil, fixes, fmt.Errorf("not valid JSON and %w: %w", errNotRepaired, rerr)
	}
	if v, err = jsoncoerce.Decode(fixed); err != nil {
		return nil, fixes, fmt.Errorf("not valid JSON: %w", err)
	}
	return v, fixes, nil
}

// Run executes a prepared call once and returns its result, never nil: a panic
// becomes a panic result, a returned error a failure of its kind (a context
// deadline a timeout, a cancellation cancelled), a nil result an empty
// success. A successful result's content is kept exactly as the tool returned
// it: an empty result stays empty, as the model will read it.
// Run does not retry and imposes no timeout: the agent loop owns both.
func (p *Prepared) Run(ctx context.Context) (res *Result) {
	if !p.Ready() {
		if p.Result != nil {
			return p.Result
		}
		return Fail(KindFailed, "the call was not prepared")
	}
	defer func() {
		if v := recover(); v != nil {
			res = Failf(KindPanic, "tool %s panicked: %v", p.Call.Name, v)
		}
	}()
	out, err := p.tool.Execute(ctx, Call{ID: p.Call.ID, Name: p.Call.Name, Arguments: p.Arguments})
	return normalize(p.Call.Name, out, err)
}

// normalize turns what a tool returned into a well-formed result.
func normalize(name string, out *Result, err error) *Result {
	if err != nil {
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return Failf(KindTimeout, "tool %s did not finish in time: %v", name, err)
		case errors.Is(err, context.Canceled):
			return Failf(KindCancelled, "tool %s was cancelled: %v", name, err)
		}
		return FromError(err)
	}
	if out == nil {
		return &Result{}
	}
	for _, e := range out.Effects {
		if verr := e.Validate(); verr != nil {
			return Failf(KindFailed, "tool %s returned an invalid effect: %v", name, verr)
		}
	}
	if out.Failure != nil {
		if !out.Failure.Kind.Valid() {
			out = out.Clone()
			out.Failure.Kind = KindFailed
		}
		if out.Content == "" {
			out = out.Clone()
			out.Content = failureContent(out.Failure.Kind, out.Failure.Message)
		}
	}
	return out
}
