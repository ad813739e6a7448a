package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	inferschema "github.com/google/jsonschema-go/jsonschema"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// ErrStructuredAnswer is wrapped by the error of a structured run whose final
// answer was still not valid JSON for the schema after one correction.
var ErrStructuredAnswer = errors.New("invalid structured answer")

// ReasonStructuredAnswer: RunStructured's answer was invalid twice (an error
// wrapping ErrStructuredAnswer).
const ReasonStructuredAnswer Reason = "structured_answer"

// StructuredAnswerPrompt is the user message that asks for the final answer as
// JSON; the schema is sent in Request.ResponseSchema too.
const StructuredAnswerPrompt = "Give your final answer now as a single JSON value that matches this JSON Schema, with nothing before or after it:\n"

// RunStructured is Run followed, when the run ends with a final text answer,
// by a structured finish that turns the answer into a T:
//   - one more request, with no tools, Request.ResponseSchema set to the JSON
//     Schema inferred from T (github.com/google/jsonschema-go) and a user
//     message (StructuredAnswerPrompt and the schema) asking for the answer;
//   - the answer's text is parsed strictly as JSON, repaired with
//     opts.Repairer only when that fails (and when set), validated against the
//     schema and decoded into T;
//   - when it is not valid, one correction request lists the problems and asks
//     again; a second invalid answer ends the run with ReasonStructuredAnswer
//     and an error wrapping ErrStructuredAnswer that names the problems.
//
// The finish's requests are turns of the run like any other (events, Turns,
// Messages, ModelCalls) but are not counted against MaxIterations. When the
// first phase ends any other way, there is no finish and the zero T is
// returned with the run's error. An error inferring or compiling T's schema
// is returned before anything runs, with a nil run.
func RunStructured[T any](ctx context.Context, model llm.Model, registry *tools.Registry, input []llm.Message, opts *Options) (*RunResult, T, error) {
	var answer T
	sa, err := newStructuredAnswer(reflect.TypeFor[T]())
	if err != nil {
		return nil, answer, err
	}
	r := newRunner(model, registry, opts)
	r.finish = func(ctx context.Context) Termination {
		raw, term := r.structuredFinish(ctx, sa)
		if term.Reason == ReasonFinalText {
			if err := json.Unmarshal(raw, &answer); err != nil { // validated, so not expected
				return Termination{Reason: ReasonStructuredAnswer, Err: fmt.Errorf("%w: decoding into %T: %v", ErrStructuredAnswer, answer, err)}
			}
		}
		return term
	}
	run, err := r.run(ctx, input)
	if err != nil {
		var zero T
		return run, zero, err
	}
	return run, answer, nil
}

// structuredAnswer is the schema of a structured answer, as sent and compiled.
type structuredAnswer struct {
	typ    reflect.Type
	schema *tools.Schema
}

func newStructuredAnswer(t reflect.Type) (*structuredAnswer, error) {
	s, err := inferschema.ForType(t, nil)
	if err != nil {
		return nil, fmt.Errorf("inferring the schema of a structured answer: %w", err)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encoding the schema of %s: %w", t, err)
	}
	compiled, err := tools.CompileSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("compiling the schema of %s: %w", t, err)
	}
	return &structuredAnswer{typ: t, schema: compiled}, nil
}

// structuredFinish asks for the answer, and once more with the problems when
// it is invalid. It returns canonical JSON of a valid answer with a final_text
// termination, or the termination that ends the run.
func (r *runner) structuredFinish(ctx context.Context, sa *structuredAnswer) (json.RawMessage, Termination) {
	r.result.Messages = append(r.result.Messages, llm.UserMessage(StructuredAnswerPrompt+string(sa.schema.JSON())))
	var problems []string
	for try := 1; ; try++ {
		if err := ctx.Err(); err != nil {
			return nil, Termination{Reason: ReasonCancelled, Err: err}
		}
		t, stop := r.generate(ctx, &llm.Request{Messages: r.history(), ResponseSchema: sa.schema.JSON()})
		if stop != nil {
			return nil, *stop
		}
		msg := t.Response.Message.Clone()
		msg.Role = llm.RoleAssistant
		msg.ToolCalls = nil // no tools were offered; a call here has no answer
		r.result.Messages = append(r.result.Messages, msg)
		r.emit(Event{Kind: EventTurnEnd})
		var raw json.RawMessage
		raw, problems = sa.parse(msg.Content, r.opts.Repairer)
		if problems == nil {
			return raw, Termination{Reason: ReasonFinalText}
		}
		if try == 2 {
			break
		}
		r.result.Messages = append(r.result.Messages, llm.UserMessage(
			"Your answer is not valid for the schema:\n- "+strings.Join(problems, "\n- ")+
				"\nAnswer again with only the corrected JSON value."))
	}
	return nil, Termination{Reason: ReasonStructuredAnswer,
		Err: fmt.Errorf("%w: the answer was invalid twice: %s", ErrStructuredAnswer, strings.Join(problems, "; "))}
}

// parse parses (repairing if needed), validates and decodes the answer's
// text. It returns canonical JSON of a valid answer, or the problems.
func (sa *structuredAnswer) parse(content string, repairer tools.Repairer) (json.RawMessage, []string) {
	value, _, err := tools.ParseJSON(strings.TrimSpace(content), repairer)
	if err != nil {
		return nil, []string{"the answer is " + err.Error()}
	}
	if errs := sa.schema.Validate(value); len(errs) > 0 {
		problems := make([]string, len(errs))
		for i, e := range errs {
			path := e.Path
			if path == "" {
				path = "/"
			}
			problems[i] = path + ": " + e.Message
		}
		return nil, problems
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return nil, []string{fmt.Sprintf("the answer cannot be encoded: %v", err)}
	}
	target := reflect.New(sa.typ).Interface()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(target); err != nil {
		return nil, []string{fmt.Sprintf("the answer does not fit %s: %v", sa.typ, err)}
	}
	return raw, nil
}
