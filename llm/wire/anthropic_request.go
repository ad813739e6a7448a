package wire

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
)

type anthropicRequest struct {
	Model    string            `json:"model"`
	System   json.RawMessage   `json:"system"`
	Messages []json.RawMessage `json:"messages"`
	Tools    json.RawMessage   `json:"tools"`
	Stream   bool              `json:"stream"`
	// CacheControl at the top level puts a breakpoint on the request's
	// last block (automatic caching).
	CacheControl json.RawMessage `json:"cache_control"`
	// Thread asks the vendor to hold the conversation ({"type":"create"})
	// or continues one it holds ({"type":"continue","previous_message_id"}),
	// the request then carrying only the new turn: refused (errThread).
	Thread json.RawMessage `json:"thread"`
	anthropicParams
}

// errThread refuses a Messages request with thread: server-held
// conversation state that a replay cannot serve, whose requests would be
// recorded without the conversation they continue.
const errThread = "thread: a Messages Thread (conversation state the vendor holds, continued by previous_message_id) is not supported: the bridge serves only what a request carries; send the whole conversation without thread"

// anthropicParams are the Messages parameters that change the model's
// behaviour, kept as sent (see Call.Request.Params).
type anthropicParams struct {
	ToolChoice    json.RawMessage `json:"tool_choice"`
	Temperature   json.RawMessage `json:"temperature"`
	TopP          json.RawMessage `json:"top_p"`
	TopK          json.RawMessage `json:"top_k"`
	MaxTokens     json.RawMessage `json:"max_tokens"`
	StopSequences json.RawMessage `json:"stop_sequences"`
	Thinking      json.RawMessage `json:"thinking"`
	// OutputConfig sets the effort and the format of the answer (its
	// schema is the response schema); OutputFormat is the format alone, as
	// the structured outputs beta first named it.
	OutputConfig json.RawMessage `json:"output_config"`
	OutputFormat json.RawMessage `json:"output_format"`
	// ContextManagement clears old tool results or thinking from what the
	// model sees; Compaction makes the request one that summarizes the
	// conversation; Fallbacks name the models that answer when this one
	// declines.
	ContextManagement json.RawMessage `json:"context_management"`
	Compaction        json.RawMessage `json:"compaction"`
	Fallbacks         json.RawMessage `json:"fallbacks"`
	// MCPServers are the MCP servers (the MCP connector) whose tools the
	// model may call: each one's type, url, name and tool_configuration,
	// pinned with its authorization_token redacted (mcpServers).
	MCPServers json.RawMessage `json:"mcp_servers"`
}

// mcpServers returns mcp_servers as pinned: every authorization_token
// replaced by redact.Redacted, so that no tape, diff or report holds one
// (the vendor gets the agent's body as sent).
func mcpServers(raw json.RawMessage) json.RawMessage {
	if compact(raw) == nil {
		return raw
	}
	return redact.Members(raw, "authorization_token")
}

// params returns p by wire name, output_config and output_format without
// their schema (pinned as the response schema).
func (p anthropicParams) params(model string) map[string]json.RawMessage {
	return paramsOf(model, map[string]json.RawMessage{
		"tool_choice": p.ToolChoice, "temperature": p.Temperature, "top_p": p.TopP,
		"top_k": p.TopK, "max_tokens": p.MaxTokens, "stop_sequences": p.StopSequences,
		"thinking": p.Thinking, "output_config": withoutFormatSchema(p.OutputConfig),
		"output_format":      withoutKey(p.OutputFormat, "schema"),
		"context_management": p.ContextManagement, "compaction": p.Compaction, "fallbacks": p.Fallbacks,
		"mcp_servers": p.MCPServers,
	})
}

// responseSchema returns the schema the answer must follow: output_config's
// format's, else output_format's; nil when neither names one.
func (p anthropicParams) responseSchema() (json.RawMessage, error) {
	var config struct {
		Format *anthropicFormat `json:"format"`
	}
	if raw := compact(p.OutputConfig); raw != nil {
		if err := json.Unmarshal(raw, &config); err != nil {
			return nil, requestErrorf("output_config: %v", err)
		}
	}
	if config.Format == nil {
		if raw := compact(p.OutputFormat); raw != nil {
			config.Format = new(anthropicFormat)
			if err := json.Unmarshal(raw, config.Format); err != nil {
				return nil, requestErrorf("output_format: %v", err)
			}
		}
	}
	if config.Format == nil {
		return nil, nil
	}
	return compact(config.Format.Schema), nil
}

// anthropicFormat is an output format: json_schema and its schema.
type anthropicFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema"`
}

type anthropicTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// CacheControl marks a cache breakpoint after the tool.
	CacheControl json.RawMessage `json:"cache_control"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	// marks are the message's cache breakpoints, as anthropicElement
	// found them (see elements.marks).
	marks []int
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
	// CacheControl marks a cache breakpoint after the block.
	CacheControl json.RawMessage `json:"cache_control"`
}

// marked reports whether a block (or, for a tool result, a block of its
// content) carries cache_control.
func (b *anthropicBlock) marked() bool {
	if isSet(b.CacheControl) {
		return true
	}
	if b.Type == "tool_result" && bytes.Contains(b.Content, []byte(`"cache_control"`)) {
		inner, err := anthropicBlocks(b.Content)
		return err == nil && slices.ContainsFunc(inner, func(c anthropicBlock) bool { return isSet(c.CacheControl) })
	}
	return false
}

// isSet reports whether raw holds a value other than null.
func isSet(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
}

// DecodeAnthropic decodes a Messages request body. The system prompt (a
// string, or one system message per text block) comes first; a user
// message's tool_result blocks become tool messages (named after the
// tool_use they answer) and its text blocks a user message, in block order;
// an assistant message's text blocks are joined, its tool_use inputs kept as
// compact JSON text, its thinking blocks kept as reasoning; a system
// message among the messages (API version 2026-10-21) stays a system
// message where it stands, its text blocks joined by newlines. Image and
// document blocks are dropped. The error wraps ErrRequest.
func DecodeAnthropic(body []byte) (*Call, error) { return decodeAnthropic(body, nil) }

// anthropicCounted is anthropicRequest with its messages read for the
// Decoder.
type anthropicCounted struct {
	anthropicRequest
	Messages rawList `json:"messages"`
}

// decodeAnthropic decodes body reusing what last holds of the previous
// request (see Decoder), and on success makes last this request's; a nil
// last decodes it whole.
func decodeAnthropic(body []byte, last *decoded) (*Call, error) {
	var r anthropicRequest
	sent, err := last.unmarshal(body, bodyFuncs{
		counted: func(text []byte) (*rawList, error) {
			var c anthropicCounted
			err := json.Unmarshal(text, &c)
			r = c.anthropicRequest
			return &c.Messages, err
		},
		plain: func() ([]json.RawMessage, error) {
			r = anthropicRequest{}
			err := json.Unmarshal(body, &r)
			return r.Messages, err
		},
		keep:  func() any { return r },
		reuse: func(v any) { r = v.(anthropicRequest) },
		fresh: anthropicElements.fresh,
	})
	if err != nil {
		return nil, requestErrorf("messages body: %v", err)
	}
	c := &Call{Format: Anthropic, Model: r.Model, Stream: r.Stream, IncludeUsage: true}
	if isSet(r.Thread) {
		return nil, requestErrorf(errThread)
	}
	r.MCPServers = mcpServers(r.MCPServers)
	c.Request.Params = r.anthropicParams.params(r.Model)
	if c.Request.ResponseSchema, err = r.anthropicParams.responseSchema(); err != nil {
		return nil, err
	}
	system, err := anthropicBlocks(r.System)
	if err != nil {
		return nil, requestErrorf("system: %v", err)
	}
	var marks []llm.CacheMark
	for _, b := range system {
		if b.Type == "text" {
			c.Request.Messages = append(c.Request.Messages, llm.SystemMessage(b.Text))
		}
		if n := len(c.Request.Messages); isSet(b.CacheControl) && n > 0 && (len(marks) == 0 || marks[len(marks)-1].Index != n-1) {
			marks = append(marks, llm.CacheMark{Index: n - 1})
		}
	}
	c.Request.Cache = marks
	if err := last.request(c, sent, r.Tools, anthropicElements, anthropicTools); err != nil {
		return nil, err
	}
	tools, err := anthropicToolMarks(r.Tools)
	if err != nil {
		return nil, err
	}
	c.Request.Cache = append(tools, c.Request.Cache...)
	if isSet(r.CacheControl) {
		c.Request.Cache = appendLastMark(c.Request.Cache, &c.Request)
	}
	if c.Request.Cache == nil {
		c.Request.Cache = []llm.CacheMark{}
	}
	return c, nil
}

// anthropicToolMarks returns the breakpoints of a tools array: a mark on
// each tool that carries cache_control. Tools whose bytes cannot name that
// key (in any case or escape encoding/json accepts) are not decoded.
func anthropicToolMarks(raw json.RawMessage) ([]llm.CacheMark, error) {
	if !mayName(raw, "cache_control") {
		return nil, nil
	}
	var tools []anthropicTool
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, requestErrorf("tools: %v", err)
	}
	var out []llm.CacheMark
	for i, t := range tools {
		if isSet(t.CacheControl) {
			out = append(out, llm.CacheMark{Tools: true, Index: i})
		}
	}
	return out, nil
}

// appendLastMark adds to marks a breakpoint on the last element of r (its
// last message, else its last tool), unless marks ends there already.
func appendLastMark(marks []llm.CacheMark, r *llm.Request) []llm.CacheMark {
	last := llm.CacheMark{Index: len(r.Messages) - 1}
	if len(r.Messages) == 0 {
		last = llm.CacheMark{Tools: true, Index: len(r.Tools) - 1}
	}
	if last.Index < 0 || slices.Contains(marks, last) {
		return marks
	}
	return append(marks, last)
}

// anthropicElements decodes a Messages request's messages.
var anthropicElements = elements{
	fresh: func() any { return new(anthropicMessage) },
	marks: func(v any) []int { return v.(*anthropicMessage).marks },
	messages: func(i int, raw json.RawMessage, v any, names map[string]string) ([]llm.Message, error) {
		if v == nil {
			m := new(anthropicMessage)
			if err := json.Unmarshal(raw, m); err != nil {
				return nil, requestErrorf("messages[%d]: %v", i, err)
			}
			v = m
		}
		return anthropicElement(i, v.(*anthropicMessage), names)
	},
}

// anthropicElement makes messages[i], decoded as m: an assistant message,
// a user turn's tool results and text, in block order, or a system
// message (its text blocks joined by newlines).
func anthropicElement(i int, m *anthropicMessage, names map[string]string) ([]llm.Message, error) {
	blocks, err := anthropicBlocks(m.Content)
	if err != nil {
		return nil, requestErrorf("messages[%d].content: %v", i, err)
	}
	var out []llm.Message
	m.marks = nil
	mark := func(k int) {
		if n := len(m.marks); n == 0 || m.marks[n-1] != k {
			m.marks = append(m.marks, k)
		}
	}
	switch m.Role {
	case "user":
		var text []string
		pending := false // a marked text block waits for its message
		flush := func() {
			if text != nil {
				out = append(out, llm.UserMessage(strings.Join(text, "\n")))
				text = nil
				if pending {
					mark(len(out) - 1)
					pending = false
				}
			}
		}
		for j, b := range blocks {
			if b.marked() {
				switch {
				case b.Type == "text" || b.Type != "tool_result" && text != nil:
					pending = true
				case b.Type != "tool_result":
					mark(len(out) - 1) // a block that becomes no message: the one before
				}
			}
			switch b.Type {
			case "text":
				text = append(text, b.Text)
			case "tool_result":
				flush()
				content, err := anthropicResultText(b.Content)
				if err != nil {
					return nil, requestErrorf("messages[%d].content[%d].content: %v", i, j, err)
				}
				out = append(out, llm.Message{
					Role: llm.RoleTool, ToolCallID: b.ToolUseID, Name: names[b.ToolUseID], Content: content, IsError: b.IsError,
				})
				if b.marked() {
					mark(len(out) - 1)
				}
			}
		}
		flush()
	case "assistant":
		msg := llm.Message{Role: llm.RoleAssistant}
		for _, b := range blocks {
			if b.marked() {
				mark(0)
			}
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
		out = append(out, msg)
	case "system":
		// API version 2026-10-21: a system message among the messages,
		// text blocks only, kept where it stands.
		text := make([]string, 0, len(blocks))
		for j, b := range blocks {
			if b.Type != "text" {
				return nil, requestErrorf("messages[%d].content[%d].type: %q in a system message (want text)", i, j, b.Type)
			}
			if b.marked() {
				mark(0)
			}
			text = append(text, b.Text)
		}
		out = append(out, llm.SystemMessage(strings.Join(text, "\n")))
	default:
		return nil, requestErrorf("messages[%d].role: unknown role %q (want user, assistant or system)", i, m.Role)
	}
	return out, nil
}

// anthropicTools decodes the tools array.
func anthropicTools(raw json.RawMessage) ([]llm.ToolDefinition, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var tools []anthropicTool
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, requestErrorf("tools: %v", err)
	}
	var defs []llm.ToolDefinition
	for i, t := range tools {
		if t.Type != "" && t.Type != "custom" {
			return nil, requestErrorf("tools[%d].type: %q tools are not supported (only custom tools)", i, t.Type)
		}
		defs = append(defs, llm.ToolDefinition{Name: t.Name, Description: t.Description, Parameters: compact(t.InputSchema)})
	}
	return defs, nil
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
