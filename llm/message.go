package llm

import "encoding/json"

// Role is who wrote a message.
type Role string

// The roles of a conversation.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Valid reports whether r is one of the defined roles.
func (r Role) Valid() bool {
	switch r {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		return true
	}
	return false
}

// Message is one entry of a conversation. ToolCalls and Reasoning are set only
// on assistant messages; ToolCallID and Name (the tool's name) only on tool
// messages; IsError only on tool messages that report a failure.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
	// IsError marks a tool message whose content reports a failed call
	// (Anthropic's tool_result is_error); false means a success or unknown.
	IsError bool `json:"is_error,omitempty"`
	// Reasoning is what the model thought before answering, in order, as the
	// provider returned it (OpenAI-compatible reasoning_content, Anthropic
	// thinking blocks); nil means none. Providers send it back only where the
	// API requires it (Anthropic's signed thinking blocks).
	Reasoning []Reasoning `json:"reasoning,omitempty"`
}

// Reasoning is one block of a model's thinking.
type Reasoning struct {
	// Text is the thinking as the model wrote it; empty for a redacted block.
	Text string `json:"text,omitempty"`
	// Signature authenticates the block when it is sent back (Anthropic's
	// thinking signature, Gemini's thoughtSignature); empty when the
	// provider gives none. A block with a Signature only (no Text, no
	// Redacted) is Gemini's signature of thoughts it did not show, carried
	// on the answer's text.
	Signature string `json:"signature,omitempty"`
	// Redacted is the opaque data of a redacted thinking block (Anthropic);
	// empty for a readable one.
	Redacted string `json:"redacted,omitempty"`
}

// ReasoningText returns the text of every reasoning block, joined.
func (m Message) ReasoningText() string {
	var s string
	for _, r := range m.Reasoning {
		s += r.Text
	}
	return s
}

// ToolCall is a call the model asked for. Arguments is the raw text exactly as the
// model emitted it; it may be empty or broken JSON.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// Signature is opaque data the provider attached to the call and wants
	// sent back with it byte for byte (Gemini's thoughtSignature, base64);
	// empty when it gave none.
	Signature string `json:"signature,omitempty"`
}

// SystemMessage returns a system message with the given content.
func SystemMessage(content string) Message { return Message{Role: RoleSystem, Content: content} }

// UserMessage returns a user message with the given content.
func UserMessage(content string) Message { return Message{Role: RoleUser, Content: content} }

// AssistantMessage returns an assistant message with content and optional tool calls.
func AssistantMessage(content string, calls ...ToolCall) Message {
	return Message{Role: RoleAssistant, Content: content, ToolCalls: calls}
}

// ToolMessage returns the tool message that answers the call with the given id.
func ToolMessage(callID, name, content string) Message {
	return Message{Role: RoleTool, ToolCallID: callID, Name: name, Content: content}
}

// Clone returns a deep copy of m, so that the copy's ToolCalls and Reasoning
// can be changed without touching m.
func (m Message) Clone() Message {
	if m.ToolCalls != nil {
		m.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
	}
	if m.Reasoning != nil {
		m.Reasoning = append([]Reasoning(nil), m.Reasoning...)
	}
	return m
}

// ToolDefinition is what a model is told about a tool: its name, what it does and
// the JSON Schema of its arguments.
type ToolDefinition struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// CloneMessages returns a deep copy of ms (each message's Clone); nil
// gives nil.
func CloneMessages(ms []Message) []Message {
	if ms == nil {
		return nil
	}
	c := make([]Message, len(ms))
	for i, m := range ms {
		c[i] = m.Clone()
	}
	return c
}

// Clone returns a deep copy of r (its message's Clone); nil gives nil.
func (r *Response) Clone() *Response {
	if r == nil {
		return nil
	}
	c := *r
	c.Message = r.Message.Clone()
	return &c
}
