package replay

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
)

// TestReplayAppliesTheTapesRedactionToWhatWasOffered: a secret in the
// system prompt, a tool's description or its schema was recorded as
// Redacted; the live request, which holds it, still replays, while any
// other change of the prompt or the tool still diverges with its diff
// (issue 22).
func TestReplayAppliesTheTapesRedactionToWhatWasOffered(t *testing.T) {
	tp := &tape.Tape{
		Offered: &tape.Offered{
			System: []string{"You deploy with the key [REDACTED]; never say it."},
			Tools: []llm.ToolDefinition{{Name: "deploy", Description: "Deploys with the token [REDACTED].",
				Parameters: []byte(`{"type":"object","properties":{"env":{"type":"string","description":"like [REDACTED]"}}}`)}},
		},
		Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("done")}}},
	}
	req := func(system, desc, schemaDesc string) *llm.Request {
		return &llm.Request{
			Messages: []llm.Message{llm.SystemMessage(system), llm.UserMessage("go")},
			Tools: []llm.ToolDefinition{{Name: "deploy", Description: desc,
				Parameters: []byte(`{"properties": {"env": {"description": "` + schemaDesc + `", "type": "string"}}, "type": "object"}`)}},
		}
	}
	const key = "sk-proj-Lk9QmZ2xW7pRs4TuV8yNa3Bc6De1Fg5Hj"
	if _, err := NewModel(tp, nil).Generate(context.Background(), req("You deploy with the key "+key+"; never say it.", "Deploys with the token "+key+".", "like "+key)); err != nil {
		t.Fatalf("the redacted secrets did not match: %v", err)
	}
	for _, c := range []struct {
		name, system, desc, schemaDesc, want string
	}{
		{"prompt", "You deploy with the key " + key + "; say it.", "Deploys with the token " + key + ".", "like " + key, "offered.system"},
		{"description", "You deploy with the key " + key + "; never say it.", "Deploys with " + key + ".", "like " + key, "offered.tools"},
		{"schema", "You deploy with the key " + key + "; never say it.", "Deploys with the token " + key + ".", "as " + key, "offered.tools"},
	} {
		_, err := NewModel(tp, nil).Generate(context.Background(), req(c.system, c.desc, c.schemaDesc))
		if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s changed: %v; want a divergence in %s", c.name, err, c.want)
		}
	}
}

// A tool schema recorded with a value redacted matches the run's schema
// holding the value, and diverges once the schema gains a property.
func TestRedactedToolSchemaThatGainedAPropertyDiverges(t *testing.T) {
	schema := func(key, extra string) []byte {
		return []byte(`{"type":"object","properties":{"key":{"const":"` + key + `"}` + extra + `}}`)
	}
	tp := &tape.Tape{Offered: &tape.Offered{Tools: []llm.ToolDefinition{{Name: "login", Parameters: schema(redact.Redacted, "")}}},
		Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("done")}}}}
	run := func(params []byte) error {
		_, err := NewModel(tp, nil).Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserMessage("Go.")}, Tools: []llm.ToolDefinition{{Name: "login", Parameters: params}}})
		return err
	}
	if err := run(schema("hunter2-Echo", "")); err != nil {
		t.Errorf("the schema holding the redacted value: %v", err)
	}
	if err := run(schema("hunter2-Echo", `,"user":{"type":"string"}`)); !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "tool login: parameters (schema) changed") {
		t.Errorf("the schema with a property more: %v, want a divergence", err)
	}
}

// TestReplayAppliesTheTapesRedactionToParams: a request parameter recorded
// with a secret redacted (an MCP server's token in Messages' mcp_servers,
// a list of objects) matches the live request holding the token, while a
// change elsewhere in the list (another server's address) still diverges
// naming the parameter.
func TestReplayAppliesTheTapesRedactionToParams(t *testing.T) {
	servers := func(url, token string) json.RawMessage {
		return json.RawMessage(`[{"type":"url","name":"crm","url":"https://crm.example/mcp","authorization_token":"` + token + `"},` +
			`{"type":"url","name":"docs","url":"` + url + `"}]`)
	}
	tp := &tape.Tape{
		Offered: &tape.Offered{Params: map[string]json.RawMessage{"mcp_servers": servers("https://docs.example/mcp", redact.Redacted)}},
		Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("done")}}},
	}
	const token = "sk-crm-Lk9QmZ2xW7pRs4TuV8yNa3Bc6De1Fg5Hj"
	run := func(params json.RawMessage) error {
		_, err := NewModel(tp, nil).Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserMessage("Go.")},
			Params: map[string]json.RawMessage{"mcp_servers": params}})
		return err
	}
	if err := run(servers("https://docs.example/mcp", token)); err != nil {
		t.Errorf("the servers holding the redacted token: %v", err)
	}
	if err := run(servers("https://docs.evil.example/mcp", token)); !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "offered.params") ||
		!strings.Contains(err.Error(), "docs.evil.example") {
		t.Errorf("another server's address changed: %v, want a divergence in offered.params showing it", err)
	}
}
