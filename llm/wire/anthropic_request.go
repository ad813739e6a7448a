package wire

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

type anthropicRequest struct {
	Model    string             `json:"model"`
	System   json.RawMessage    `json:"system"`
	Messages []anthropicMessage `json:"messages"`
	Tools    []struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
}

// DecodeAnthropic decodes a Messages request body. The system prompt (a
// string, or one system message per text block) comes first; a user
// message's tool_result blocks become tool messages (named after the
// tool_use they answer) and its text blocks a user message, in block order;
// an assistant message's text blocks are joined, its tool_use inputs kept as
// compact JSON text, its thinking blocks kept as reasoning. Image and
// document blocks are dropped. The error wraps ErrRequest.
func DecodeAnthropic(body []byte) (*Call, error) {
	var r anthropicRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, requestErrorf("messages body: %v", err)
	}
	c := &Call{Format: Anthropic, Model: r.Model, Stream: r.Stream, IncludeUsage: true}
	system, err := anthropicBlocks(r.System)
	if err != nil {
		return nil, requestErrorf("system: %v", err)
	}
	for _, b := range system {
		if b.Type == "text" {
			c.Request.Messages = append(c.Request.Messages, llm.SystemMessage(b.Text))
		}
	}
	names := map[string]string{}
	for i, m := range r.Messages {
		blocks, err := anthropicBlocks(m.Content)
		if err != nil {
			return nil, requestErrorf("messages[%d].content: %v", i, err)
		}
		switch m.Role {
		case "user":
			var text []string
			flush := func() {
				if text != nil {
					c.Request.Messages = append(c.Request.Messages, llm.UserMessage(strings.Join(text, "\n")))
					text = nil
				}
			}
			for j, b := range blocks {
				switch b.Type {
				case "text":
					text = append(text, b.Text)
				case "tool_result":
					flush()
					content, err := anthropicResultText(b.Content)
					if err != nil {
						return nil, requestErrorf("messages[%d].content[%d].content: %v", i, j, err)
					}
					c.Request.Messages = append(c.Request.Messages, llm.Message{
						Role: llm.RoleTool, ToolCallID: b.ToolUseID, Name: names[b.ToolUseID], Content: content, IsError: b.IsError,
					})
				}
			}
			flush()
		case "assistant":
			msg := llm.Message{Role: llm.RoleAssistant}
			for _, b := range blocks {
				switch b.Type {
				case "text":
					msg.Content += b.Text
				case "thinking":
					msg.Reasoning = append(msg.Reasoning, llm.Reasoning{Text: b.Thinking, Signature: b.Signature})
				case "redacted_thinking":
					msg.Reasoning = append(msg.Reasoning, llm.Reasoning{Redacted: b.Data})
				case "tool_use":
					msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: string(compact(b.Input))})
					names[b.ID] = b.Name
				}
			}
			c.Request.Messages = append(c.Request.Messages, msg)
		default:
			return nil, requestErrorf("messages[%d].role: unknown role %q (want user or assistant)", i, m.Role)
		}
	}
	for i, t := range r.Tools {
		if t.Type != "" && t.Type != "custom" {
			return nil, requestErrorf("tools[%d].type: %q tools are not supported (only custom tools)", i, t.Type)
		}
		c.Request.Tools = append(c.Request.Tools, llm.ToolDefinition{Name: t.Name, Description: t.Description, Parameters: compact(t.InputSchema)})
	}
	return c, nil
}

// anthropicBlocks reads content given as a string (one text block), null
// (none) or an array of blocks.
func anthropicBlocks(raw json.RawMessage) ([]anthropicBlock, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []anthropicBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []anthropicBlock
	err := json.Unmarshal(raw, &blocks)
	return blocks, err
}

// anthropicResultText reads a tool_result's content: a string, or the text
// of its text blocks joined by newlines.
func anthropicResultText(raw json.RawMessage) (string, error) {
	blocks, err := anthropicBlocks(raw)
	if err != nil {
		return "", err
	}
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}
