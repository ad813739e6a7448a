package replay

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
)

// answerSchema is the schema a structured finish asks the answer to match.
const answerSchema = `{"type":"object","properties":{"done":{"type":"boolean"}},"required":["done"]}`

// structuredRun runs baseAgent's loop on m and then, as
// agent.RunStructured does, one more request with no tools and the response
// schema (none when schema is ""), after the final text.
func structuredRun(m llm.Model, schema string) error {
	a := baseAgent()
	req := &llm.Request{Messages: []llm.Message{llm.SystemMessage(a.system), llm.UserMessage("Write hello to notes.txt.")}, Tools: a.tools}
	for {
		resp, err := m.Generate(context.Background(), req)
		if err != nil {
			return err
		}
		req.Messages = append(req.Messages, resp.Message)
		if len(resp.Message.ToolCalls) == 0 {
			break
		}
		for _, c := range resp.Message.ToolCalls {
			req.Messages = append(req.Messages, llm.ToolMessage(c.ID, c.Name, a.result(c)))
		}
	}
	finish := &llm.Request{Messages: append(req.Messages, llm.UserMessage("Answer as JSON.")), ResponseSchema: []byte(schema)}
	_, err := m.Generate(context.Background(), finish)
	return err
}

// recordStructured records structuredRun with answerSchema and reads the
// tape back from its encoding.
func recordStructured(t *testing.T) (*tape.Tape, string) {
	t.Helper()
	rec := NewRecorder(scriptedModel(
		&llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "write_file", Arguments: `{"path": "notes.txt", "content": "hello"}`})},
		&llm.Response{Message: llm.AssistantMessage("Done.")},
		&llm.Response{Message: llm.AssistantMessage(`{"done": true}`)},
	), &RecorderOptions{Redactor: redact.New(nil)})
	if err := structuredRun(rec, answerSchema); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tape.Encode(&b, rec.Tape()); err != nil {
		t.Fatal(err)
	}
	tp, err := tape.Decode(strings.NewReader(b.String()), "answer.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	return tp, b.String()
}

// TestResponseSchemaIsRecordedAndCompared: the response schema a request
// asks the answer to match (a structured finish) is recorded with what was
// offered, readably; a replay whose request asks for another schema, or
// none, fails closed with a diff naming it; rebase accepts the new schema
// offline (issue 22).
func TestResponseSchemaIsRecordedAndCompared(t *testing.T) {
	tp, text := recordStructured(t)
	for _, want := range []string{"      offered:\n        tools: []\n        response_schema:\n          type: object\n", "            done:\n              type: boolean\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("the recording lacks %q:\n%s", want, text)
		}
	}
	if strings.Count(text, "response_schema") != 1 {
		t.Errorf("the recording states the response schema other than once, on the finish:\n%s", text)
	}
	if err := structuredRun(NewModel(tp, nil), answerSchema); err != nil {
		t.Fatalf("the same run: %v", err)
	}
	changed := `{"type":"object","properties":{"done":{"type":"boolean"},"why":{"type":"string"}},"required":["done"]}`
	for _, c := range []struct {
		name, schema string
		want         []string
	}{
		{"another schema", changed, []string{"tape[2] at answer.yaml:", "offered.response_schema differs",
			"offered.response_schema (recorded at answer.yaml:", "): the response schema changed, as JSON:\n", "+    \"why\": {\n"}},
		{"no schema", "", []string{"offered.response_schema differs", "-  \"required\": [\n", "+(none)"}},
	} {
		err := structuredRun(NewModel(tp, nil), c.schema)
		if !errors.Is(err, ErrDiverged) {
			t.Errorf("%s: err = %v, want a divergence", c.name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: the divergence lacks %q:\n%v", c.name, w, err)
			}
		}
	}
	// Rebase takes the new schema; the old one then diverges.
	m := NewModel(tp, &ModelOptions{Rebase: true})
	if err := structuredRun(m, changed); err != nil {
		t.Fatalf("the run in rebase mode: %v", err)
	}
	rb, err := m.Rebased(nil)
	if err != nil || !rb.Changed() {
		t.Fatalf("Rebased: changed %v, %v", rb != nil && rb.Changed(), err)
	}
	if err := structuredRun(NewModel(rb.Tape, nil), changed); err != nil {
		t.Errorf("the new schema against the rebased tape: %v", err)
	}
	if err := structuredRun(NewModel(rb.Tape, nil), answerSchema); !errors.Is(err, ErrDiverged) {
		t.Errorf("the old schema against the rebased tape: err = %v, want a divergence", err)
	}
}

// A response schema compares as a JSON value, not by its length: another
// schema of the same length diverges.
func TestAnotherResponseSchemaOfTheSameLengthDiverges(t *testing.T) {
	tp, _ := recordStructured(t)
	other := strings.Replace(answerSchema, `"boolean"`, `"integer"`, 1)
	if len(other) != len(answerSchema) || other == answerSchema {
		t.Fatalf("want another schema of the same length, got %s", other)
	}
	err := structuredRun(NewModel(tp, nil), other)
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "offered.response_schema differs") {
		t.Errorf("err = %v, want the response schema to differ", err)
	}
}

// TestResponseSchemaHoldingASecretReplays: a secret in the response schema
// is recorded as Redacted; the replay, whose schema still holds it,
// matches, while another change of the schema still diverges.
func TestResponseSchemaHoldingASecretReplays(t *testing.T) {
	const key = "sk-proj-Lk9QmZ2xW7pRs4TuV8yNa3Bc6De1Fg5Hj"
	schema := func(desc string) string {
		return `{"type":"object","properties":{"done":{"type":"boolean","description":"` + desc + `"}},"required":["done"]}`
	}
	rec := NewRecorder(scriptedModel(
		&llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "write_file", Arguments: `{"path": "notes.txt", "content": "hello"}`})},
		&llm.Response{Message: llm.AssistantMessage("Done.")},
		&llm.Response{Message: llm.AssistantMessage(`{"done": true}`)},
	), &RecorderOptions{Redactor: redact.New(&redact.Options{Secrets: []redact.Secret{{Kind: "KEY", Value: key}}, SecretEnv: []string{}})})
	if err := structuredRun(rec, schema("signed with "+key)); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tape.Encode(&b, rec.Tape()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), key) || !strings.Contains(b.String(), redact.Redacted) {
		t.Fatalf("the key is not redacted in the recording:\n%s", b.String())
	}
	tp, err := tape.Decode(strings.NewReader(b.String()), "answer.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := structuredRun(NewModel(tp, nil), schema("signed with "+key)); err != nil {
		t.Errorf("the same schema, holding the key: %v", err)
	}
	if err := structuredRun(NewModel(tp, nil), schema("sealed with "+key)); !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "offered.response_schema differs") {
		t.Errorf("another schema holding the key: err = %v, want the response schema to differ", err)
	}
}
