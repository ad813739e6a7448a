package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// uniqueSchemaTool returns a tool whose schema text no other test uses (its
// $comment names the test), so that it starts with nothing remembered; it
// answers with its arguments as executed.
func uniqueSchemaTool(t *testing.T, name string) Tool {
	t.Helper()
	schema := fmt.Sprintf(`{"$comment": %q, "type": "object", "properties": {"path": {"type": "string"},
		"count": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}},
		"required": ["path"], "additionalProperties": false}`, t.Name())
	return Func(Spec{Name: name, Parameters: json.RawMessage(schema)},
		func(ctx context.Context, call Call) (*Result, error) { return Success(string(call.Arguments)), nil })
}

// TestPreparingAgainGivesTheSameExecution: an argument text prepared a
// second time (from what the schema remembers) gives what the first
// preparation gave, and what one caller does to its copy does not reach the
// next.
func TestPreparingAgainGivesTheSameExecution(t *testing.T) {
	r := NewRegistry(nil)
	r.MustRegister(uniqueSchemaTool(t, "t"))
	for _, args := range []string{
		`{"path": "a.txt"}`,
		`{"path": "a.txt", "count": "3", "tags": [1, "x"]}`, // coerced
		`{"count": 2, "path": "b"}`,
		``,                           // no arguments: invalid (path is required)
		`{"path": "a", "extra": 1}`,  // invalid
		`{"path": "a", "count": 1,}`, // broken, no repairer
	} {
		first := r.Execute(context.Background(), llm.ToolCall{ID: "1", Name: "t", Arguments: args})
		for i := range 2 {
			again := r.Execute(context.Background(), llm.ToolCall{ID: "1", Name: "t", Arguments: args})
			if !reflect.DeepEqual(again, first) {
				t.Errorf("%s: prepared again\n%+v\nfirst\n%+v", args, again, first)
			}
			if i == 0 {
				// The caller owns what it got: changing it must not reach
				// the next.
				for i := range again.Arguments {
					again.Arguments[i] = 'X'
				}
				for i := range again.Coercions {
					again.Coercions[i].Path = "/changed"
				}
			}
		}
	}
}

// spacesRepairer repairs a trailing comma before the closing brace without
// naming a fix: a repaired text must not be remembered as valid just
// because no fix was named.
type spacesRepairer struct{}

func (spacesRepairer) Repair(raw string) (string, []string, error) {
	return strings.Replace(raw, ",}", "}", 1), nil, nil
}

// TestRepairedTextsAreNotRemembered: a text that parsed only through one
// registry's repairer is not valid for another registry of the same schema
// that has none.
func TestRepairedTextsAreNotRemembered(t *testing.T) {
	with := NewRegistry(&RegistryOptions{Repairer: spacesRepairer{}})
	with.MustRegister(uniqueSchemaTool(t, "t"))
	without := NewRegistry(nil)
	without.MustRegister(uniqueSchemaTool(t, "t"))
	args := `{"path": "a.txt", "count": 1,}`
	if ex := with.Execute(context.Background(), llm.ToolCall{Name: "t", Arguments: args}); ex.Result.Failed() {
		t.Fatalf("with a repairer: %s", ex.Result.Content)
	}
	ex := without.Execute(context.Background(), llm.ToolCall{Name: "t", Arguments: args})
	if ex.Result.Kind() != KindValidation || !strings.Contains(ex.Result.Content, "not valid JSON") {
		t.Errorf("without a repairer: kind %q, content %q; want a validation failure", ex.Result.Kind(), ex.Result.Content)
	}
}

// TestPreparedTextsAreKeptPerSchema: a text valid against one schema is
// still checked against another.
func TestPreparedTextsAreKeptPerSchema(t *testing.T) {
	r := NewRegistry(nil)
	r.MustRegister(uniqueSchemaTool(t, "loose"), Func(Spec{Name: "strict", Parameters: json.RawMessage(
		`{"type": "object", "properties": {"path": {"type": "string", "maxLength": 2}}}`)},
		func(ctx context.Context, call Call) (*Result, error) { return Success("ran"), nil }))
	args := `{"path": "a.txt"}`
	if ex := r.Execute(context.Background(), llm.ToolCall{Name: "loose", Arguments: args}); ex.Result.Failed() {
		t.Fatalf("loose: %s", ex.Result.Content)
	}
	if ex := r.Execute(context.Background(), llm.ToolCall{Name: "strict", Arguments: args}); ex.Result.Kind() != KindValidation {
		t.Errorf("strict: kind %q, content %q; want a validation failure", ex.Result.Kind(), ex.Result.Content)
	}
}

// TestArgumentsUnchangedWhenRemembered: the flag is computed for each call,
// not remembered: an ArgumentPreparer's rewrite of one call's text to
// another call's text still counts as a change.
func TestArgumentsUnchangedWhenRemembered(t *testing.T) {
	r := NewRegistry(nil)
	r.MustRegister(prepTool{uniqueSchemaTool(t, "prep")})
	full := `{"path": "default.txt", "count": 1}`
	if ex := r.Execute(context.Background(), llm.ToolCall{Name: "prep", Arguments: full}); ex.Result.Failed() || !ex.ArgumentsUnchanged {
		t.Fatalf("as sent: failed %v, unchanged %v", ex.Result.Failed(), ex.ArgumentsUnchanged)
	}
	if ex := r.Execute(context.Background(), llm.ToolCall{Name: "prep"}); ex.Result.Failed() || ex.ArgumentsUnchanged {
		t.Errorf("filled by the preparer: failed %v, unchanged %v; want unchanged false", ex.Result.Failed(), ex.ArgumentsUnchanged)
	}
}

// remembers reports whether the registration of name in r remembers the
// argument text raw as valid.
func remembers(r *Registry, name, raw string) bool {
	_, ok := r.Snapshot().byName[name].memo.remembered(raw)
	return ok
}

// TestARepeatWithinARegistryIsRemembered: a valid text sent again to the
// same registration is prepared from what it remembers; an invalid one is
// not remembered.
func TestARepeatWithinARegistryIsRemembered(t *testing.T) {
	r := NewRegistry(nil)
	r.MustRegister(uniqueSchemaTool(t, "t"))
	valid, invalid := `{"path": "a"}`, `{"path": 1, "extra": true}`
	for _, args := range []string{valid, invalid} {
		if remembers(r, "t", args) {
			t.Fatalf("%s is remembered before any call", args)
		}
		r.Execute(context.Background(), llm.ToolCall{Name: "t", Arguments: args})
	}
	if !remembers(r, "t", valid) {
		t.Errorf("the valid text %s is not remembered after a call", valid)
	}
	if remembers(r, "t", invalid) {
		t.Errorf("the invalid text %s is remembered", invalid)
	}
}

// TestANewRegistryRemembersNothing: what one registry (one run of a
// harness) prepared is not carried to the next, though both compile the
// same schema (the process-wide cache shares it), nor to a new
// registration of the tool in the same registry.
func TestANewRegistryRemembersNothing(t *testing.T) {
	args := `{"path": "a"}`
	first := NewRegistry(nil)
	first.MustRegister(uniqueSchemaTool(t, "t"))
	first.Execute(context.Background(), llm.ToolCall{Name: "t", Arguments: args})
	if !remembers(first, "t", args) {
		t.Fatal("the first registry does not remember the text it prepared")
	}
	next := NewRegistry(nil)
	next.MustRegister(uniqueSchemaTool(t, "t"))
	if next.Snapshot().byName["t"].schema != first.Snapshot().byName["t"].schema {
		t.Fatal("the two registries do not share the compiled schema; the test proves nothing")
	}
	if remembers(next, "t", args) {
		t.Error("a new registry remembers a text another registry prepared")
	}
	first.MustRegister(uniqueSchemaTool(t, "t"))
	if remembers(first, "t", args) {
		t.Error("a new registration of the tool remembers what the one it replaced prepared")
	}
}
