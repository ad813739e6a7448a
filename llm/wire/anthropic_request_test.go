package wire_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// TestAnthropicRequestParams decodes a Messages body setting every
// parameter the API reference lists as changing the answer, and two that do
// not (metadata, service_tier): the first are the call's Params, compacted,
// under the API's own names; the others are left out.
func TestAnthropicRequestParams(t *testing.T) {
	body := `{"model": "claude-test", "max_tokens": 64, "temperature": 0.2, "top_p": 0.9, "top_k": 40,
  "stop_sequences": ["END"], "tool_choice": {"type": "tool", "name": "read_file"},
  "thinking": {"type": "enabled", "budget_tokens": 1024},
  "metadata": {"user_id": "u-1"}, "service_tier": "auto",
  "messages": [{"role": "user", "content": "Hi."}]}`
	c, err := wire.Decode("/v1/messages", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"model": `"claude-test"`, "max_tokens": `64`, "temperature": `0.2`, "top_p": `0.9`, "top_k": `40`,
		"stop_sequences": `["END"]`, "tool_choice": `{"type":"tool","name":"read_file"}`,
		"thinking": `{"type":"enabled","budget_tokens":1024}`,
	}
	got := map[string]string{}
	for k, v := range c.Request.Params {
		got[k] = string(v)
	}
	if !maps.Equal(got, want) {
		t.Errorf("params\n got %v\nwant %v", got, want)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Request.Params)) {
		if !json.Valid(c.Request.Params[k]) {
			t.Errorf("params[%s] = %s, not JSON", k, c.Request.Params[k])
		}
	}
}

// TestAnthropicResponseSchema: the schema a Messages answer must follow is
// output_config's format's (structured outputs), else output_format's (the
// beta's name for the format alone), compacted; none when neither names a
// format (output_config may set only the effort). The parameters keep the
// rest of both, without the schema.
func TestAnthropicResponseSchema(t *testing.T) {
	const object = `{"type": "object", "properties": {"n": {"type": "integer"}}}`
	config := `"output_config": {"effort": "low", "format": {"type": "json_schema", "schema": ` + object + `}}`
	format := `"output_format": {"type": "json_schema", "schema": {"type": "array"}}`
	for _, tc := range []struct{ name, keys, want string }{
		{"output_config", config, `{"type":"object","properties":{"n":{"type":"integer"}}}`},
		{"output_format", format, `{"type":"array"}`},
		{"output_config with only the effort, and output_format", `"output_config": {"effort": "low"}, ` + format, `{"type":"array"}`},
		{"both", config + `, ` + format, `{"type":"object","properties":{"n":{"type":"integer"}}}`},
		{"neither", `"output_config": {"effort": "low"}`, ``},
	} {
		c, err := wire.DecodeAnthropic([]byte(`{"model": "claude-test", "max_tokens": 64, ` + tc.keys + `, "messages": [{"role": "user", "content": "Count."}]}`))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := string(c.Request.ResponseSchema); got != tc.want {
			t.Errorf("%s: response schema %q, want %q", tc.name, got, tc.want)
		}
		// The parameters pin the rest: the schema is pinned once, as the
		// response schema.
		for key, p := range c.Request.Params {
			if strings.Contains(string(p), `"schema"`) {
				t.Errorf("%s: params[%s] = %s, holding the schema again", tc.name, key, p)
			}
		}
	}
}

// TestAnthropicToolTypes: a tool of type "custom" (or of no type) is a
// client tool, decoded as one; a tool of another type (the API's server and
// versioned client tools, such as web_search_20250305) is refused, naming
// it, since no replay could answer it.
func TestAnthropicToolTypes(t *testing.T) {
	c, err := wire.DecodeAnthropic([]byte(`{"model": "claude-test", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi."}],
  "tools": [{"type": "custom", "name": "read_file", "input_schema": {"type": "object"}}, {"name": "write_file", "input_schema": {"type": "object"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range c.Request.Tools {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{"read_file", "write_file"}) {
		t.Errorf("tools %q, want read_file and write_file", names)
	}
	_, err = wire.DecodeAnthropic([]byte(`{"model": "claude-test", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi."}],
  "tools": [{"name": "read_file", "input_schema": {"type": "object"}}, {"type": "web_search_20250305", "name": "web_search"}]}`))
	if !errors.Is(err, wire.ErrRequest) || !strings.Contains(fmt.Sprint(err), `tools[1].type: "web_search_20250305" tools are not supported`) {
		t.Errorf("a server tool: err = %v, want one naming tools[1].type", err)
	}
}

// TestAnthropicSystemInMessages: API version 2026-10-21 lets a system
// message stand among the messages (anthropic-sdk-go v2's
// SystemMessageParam: role "system", content a list of text blocks). It
// decodes as one system message, its blocks joined by newlines, where it
// stands in the conversation, after the top-level system prompt's; a
// cache_control on one of its blocks marks it, and a Decoder decodes it
// as Decode does. A block that is not text is refused, naming it.
func TestAnthropicSystemInMessages(t *testing.T) {
	body := `{"model": "claude-test", "max_tokens": 256, "system": [{"type": "text", "text": "You keep notes."}],
  "messages": [
    {"role": "user", "content": [{"type": "text", "text": "Read a.txt."}]},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "tu_1", "name": "read_file", "input": {"path": "a.txt"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "alpha"}]},
    {"role": "system", "content": [{"type": "text", "text": "The user is in a hurry."}, {"type": "text", "text": "Answer in one line.", "cache_control": {"type": "ephemeral"}}]},
    {"role": "system", "content": "Name the file."}]}`
	want := []llm.Message{
		llm.SystemMessage("You keep notes."),
		llm.UserMessage("Read a.txt."),
		llm.AssistantMessage("", llm.ToolCall{ID: "tu_1", Name: "read_file", Arguments: `{"path":"a.txt"}`}),
		{Role: llm.RoleTool, ToolCallID: "tu_1", Name: "read_file", Content: "alpha"},
		llm.SystemMessage("The user is in a hurry.\nAnswer in one line."),
		llm.SystemMessage("Name the file."),
	}
	c, err := wire.Decode("/v1/messages", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Request.Messages, want) {
		t.Errorf("messages\n got %+v\nwant %+v", c.Request.Messages, want)
	}
	if got, want := marks(&c.Request), []string{"messages[4] system"}; !slices.Equal(got, want) {
		t.Errorf("marks %q, want %q", got, want)
	}

	// A Decoder reusing the previous request's messages decodes a system
	// message whose text changed.
	var d wire.Decoder
	conv := anthropicConversation()
	anthropicTurn(conv, "call_1", "read", "one")
	conv.msgs = append(conv.msgs, `{"role":"system","content":[{"type":"text","text":"Answer in one line."}]}`)
	decodeBoth(t, &d, conv)
	anthropicTurn(conv, "call_2", "read", "two")
	decodeBoth(t, &d, conv)
	conv.msgs[3] = strings.Replace(conv.msgs[3], "one line", "two lines", 1)
	if got := decodeBoth(t, &d, conv).Request.Messages; !reflect.DeepEqual(got[5], llm.SystemMessage("Answer in two lines.")) {
		t.Errorf("the changed system message decodes as %+v", got[5])
	}

	bad := `{"model": "claude-test", "max_tokens": 256, "messages": [{"role": "user", "content": "Hi."},
    {"role": "system", "content": [{"type": "text", "text": "Be brief."}, {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}]}]}`
	if _, err := wire.Decode("/v1/messages", []byte(bad)); !errors.Is(err, wire.ErrRequest) ||
		!strings.Contains(err.Error(), `messages[1].content[1].type: "image"`) {
		t.Errorf("an image in a system message: %v", err)
	}
}

// TestAnthropicThinkingSentBack: with extended thinking, an agent sends
// the assistant's thinking back in the next request, as the API asks: a
// thinking block (its text and signature) and a redacted_thinking block
// (only its encrypted data). Each decodes as the turn's reasoning, in
// order, so the tape sees what the model was given back.
func TestAnthropicThinkingSentBack(t *testing.T) {
	body := `{"model": "claude-test", "max_tokens": 2048, "thinking": {"type": "enabled", "budget_tokens": 1024},
  "messages": [
    {"role": "user", "content": "What is in a.txt?"},
    {"role": "assistant", "content": [
      {"type": "thinking", "thinking": "I should read the file.", "signature": "sig-1"},
      {"type": "redacted_thinking", "data": "opaque-2"},
      {"type": "tool_use", "id": "tu_1", "name": "read_file", "input": {"path": "a.txt"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "alpha"}]}]}`
	c, err := wire.Decode("/v1/messages", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Message{
		Role:      llm.RoleAssistant,
		Reasoning: []llm.Reasoning{{Text: "I should read the file.", Signature: "sig-1"}, {Redacted: "opaque-2"}},
		ToolCalls: []llm.ToolCall{{ID: "tu_1", Name: "read_file", Arguments: `{"path":"a.txt"}`}},
	}
	if len(c.Request.Messages) != 3 {
		t.Fatalf("messages = %+v, want 3", c.Request.Messages)
	}
	if got := c.Request.Messages[1]; !reflect.DeepEqual(got, want) {
		t.Errorf("assistant turn\n got %+v\nwant %+v", got, want)
	}
}

// TestAnthropicThreadRefused: a Messages request with thread, which asks
// the vendor to hold the conversation or continues one it holds (the
// request then carrying only the new turn), is refused naming the key,
// creating or continuing alike; thread: null is no thread.
func TestAnthropicThreadRefused(t *testing.T) {
	const head = `{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"Hi."}]`
	for _, thread := range []string{`{"type":"create"}`, `{"type":"continue","previous_message_id":"msg_01"}`} {
		_, err := wire.DecodeAnthropic([]byte(head + `,"thread":` + thread + `}`))
		if !errors.Is(err, wire.ErrRequest) || !strings.Contains(err.Error(), "thread: a Messages Thread") {
			t.Errorf("thread %s: error %v, want one wrapping ErrRequest naming thread", thread, err)
		}
	}
	if _, err := wire.DecodeAnthropic([]byte(head + `,"thread":null}`)); err != nil {
		t.Errorf("thread: null: %v", err)
	}
}

// TestAnthropicMCPServersPinnedRedacted: mcp_servers is pinned with each
// authorization_token replaced by [REDACTED], the rest as sent.
func TestAnthropicMCPServersPinnedRedacted(t *testing.T) {
	c, err := wire.DecodeAnthropic([]byte(`{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"Hi."}],` +
		`"mcp_servers":[{"type":"url","url":"https://mcp.example.com/sse","name":"docs","authorization_token":"tok-0123456789","tool_configuration":{"enabled":true}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got := string(c.Request.Params["mcp_servers"])
	if want := `[{"authorization_token":"[REDACTED]","name":"docs","tool_configuration":{"enabled":true},"type":"url","url":"https://mcp.example.com/sse"}]`; got != want {
		t.Errorf("mcp_servers pinned as %s, want %s", got, want)
	}
}
