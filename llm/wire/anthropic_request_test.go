package wire_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

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
