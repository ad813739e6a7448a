package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// block is a content block of the Messages API, as sent and received.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
}

// claudeAnswer answers the input's user messages over the Messages API at
// $ANTHROPIC_BASE_URL with the same two tools, and returns the text.
func claudeAnswer(system string, in []message) string {
	type turn struct {
		Role    string  `json:"role"`
		Content []block `json:"content"`
	}
	var msgs []turn
	for _, m := range in {
		if m.Role == "user" {
			msgs = append(msgs, turn{"user", []block{{Type: "text", Text: m.Content}}})
		}
	}
	tool := func(name, desc, schema string) any {
		return map[string]any{"name": name, "description": desc, "input_schema": json.RawMessage(schema)}
	}
	tools := []any{
		tool("read_file", "Read a file.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		tool("write_file", "Write a file.", `{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`),
	}
	for range 10 {
		body, _ := json.Marshal(map[string]any{"model": "claude-test", "max_tokens": 1024, "system": system, "messages": msgs, "tools": tools})
		req, _ := http.NewRequest(http.MethodPost, os.Getenv("ANTHROPIC_BASE_URL")+"/v1/messages", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Api-Key", os.Getenv("ANTHROPIC_API_KEY"))
		req.Header.Set("Anthropic-Version", "2023-06-01")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fail(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			fail(fmt.Errorf("model call: HTTP %d: %s", resp.StatusCode, data))
		}
		var out struct {
			Content []block `json:"content"`
		}
		if err := json.Unmarshal(data, &out); err != nil {
			fail(fmt.Errorf("model call: bad answer %s", data))
		}
		msgs = append(msgs, turn{"assistant", out.Content})
		var text strings.Builder
		var results []block
		for _, b := range out.Content {
			switch b.Type {
			case "text":
				text.WriteString(b.Text)
			case "tool_use":
				results = append(results, block{Type: "tool_result", ToolUseID: b.ID, Content: runTool(b.Name, string(b.Input))})
			}
		}
		if len(results) == 0 {
			return text.String()
		}
		msgs = append(msgs, turn{"user", results})
	}
	fail(fmt.Errorf("too many steps"))
	return ""
}
