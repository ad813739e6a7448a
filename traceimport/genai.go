package traceimport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// The GenAI semantic conventions' attribute and event names this file reads.
const (
	gaOperation    = "gen_ai.operation.name"
	gaInput        = "gen_ai.input.messages"
	gaOutput       = "gen_ai.output.messages"
	gaSystem       = "gen_ai.system_instructions"
	gaToolDefs     = "gen_ai.tool.definitions"
	gaDetailsEvent = "gen_ai.client.inference.operation.details"
)

// captureHint says how to turn content capture on, for ErrNoContent.
const captureHint = "turn message content capture on where the agent runs: " +
	"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true for the OpenTelemetry GenAI instrumentations " +
	"(SPAN_AND_EVENT, SPAN_ONLY or EVENT_ONLY with OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental, as adk-go reads it; " +
	"ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true for adk-python's own spans), " +
	"or unset OPENINFERENCE_HIDE_INPUTS and OPENINFERENCE_HIDE_OUTPUTS for OpenInference"

// isGenAIModel reports whether sp is a GenAI inference span.
func isGenAIModel(sp *Span) bool {
	switch sp.str(gaOperation) {
	case "chat", "generate_content", "text_completion":
		return true
	}
	return false
}

// isGenAITool reports whether sp is a GenAI execute_tool span.
func isGenAITool(sp *Span) bool { return sp.str(gaOperation) == "execute_tool" }

// genAITool reads an execute_tool span.
func genAITool(sp *Span) (*ToolExec, error) {
	t := &ToolExec{Span: sp, ID: sp.str("gen_ai.tool.call.id"), Name: sp.str("gen_ai.tool.name"),
		Description: sp.str("gen_ai.tool.description"), Failed: sp.Error}
	var err error
	if raw := sp.attr("gen_ai.tool.call.arguments"); raw != nil {
		if t.Arguments, err = structured(raw); err != nil {
			return nil, refuse(sp, "gen_ai.tool.call.arguments: %v", err)
		}
	}
	if raw := sp.attr("gen_ai.tool.call.result"); raw != nil {
		if t.Result, err = structured(raw); err != nil {
			return nil, refuse(sp, "gen_ai.tool.call.result: %v", err)
		}
	}
	if t.Name == "" {
		t.Name = strings.TrimPrefix(sp.Name, "execute_tool ")
	}
	return t, nil
}

// genAICall reads an inference span in whichever GenAI vocabulary it was
// recorded: the 1.37+ attributes (on the span, else on its details event),
// the 1.28-1.36 message events, or the older prompt/completion events.
func genAICall(sp *Span) (*Call, error) {
	c := &Call{Span: sp, Usage: genAIUsage(sp), Model: sp.str("gen_ai.request.model"), Provider: sp.str("gen_ai.provider.name")}
	if c.Provider == "" {
		c.Provider = sp.str("gen_ai.system") // its name before 1.37
	}
	if sp.Error {
		c.Err = errorText(sp)
	}
	if rs := sp.attr("gen_ai.response.finish_reasons"); rs != nil {
		var reasons []string
		if json.Unmarshal(rs, &reasons) == nil && len(reasons) > 0 {
			c.FinishReason = reasons[0]
		}
	}
	attrs := map[string]json.RawMessage{}
	for _, k := range []string{gaInput, gaOutput, gaSystem, gaToolDefs} {
		if v := sp.attr(k); v != nil {
			attrs[k] = v
			continue
		}
		for _, ev := range sp.Events {
			if ev.Name == gaDetailsEvent && ev.Attrs[k] != nil {
				attrs[k] = ev.Attrs[k]
				break
			}
		}
	}
	var err error
	switch {
	case attrs[gaInput] != nil || attrs[gaOutput] != nil:
		c.Vocabulary = VocabGenAI
		err = c.readGenAI(attrs)
	case hasEvent(sp, "gen_ai.user.message", "gen_ai.system.message", "gen_ai.assistant.message", "gen_ai.tool.message", "gen_ai.choice"):
		c.Vocabulary = VocabGenAIEvents
		err = c.readGenAIEvents()
	case hasEvent(sp, "gen_ai.content.prompt", "gen_ai.content.completion"):
		c.Vocabulary = VocabGenAIPrompt
		err = c.readGenAIPrompt()
	default:
		return nil, noContent(sp)
	}
	if err != nil {
		return nil, err
	}
	if len(c.Input) == 0 || c.Output == nil && c.Err == "" {
		return nil, noContent(sp)
	}
	return c, nil
}

func noContent(sp *Span) error {
	return &Error{File: sp.File, Line: sp.Line, Span: spanRef(sp), Err: ErrNoContent,
		Problem: "the model call was recorded without its messages, so there is nothing to replay; " + captureHint}
}

func hasEvent(sp *Span, names ...string) bool {
	for _, ev := range sp.Events {
		for _, n := range names {
			if ev.Name == n {
				return true
			}
		}
	}
	return false
}

// readGenAI reads the 1.37+ attributes.
func (c *Call) readGenAI(attrs map[string]json.RawMessage) error {
	sp := c.Span
	if raw := attrs[gaSystem]; raw != nil {
		var parts []gaPart
		if err := decodeStructured(raw, &parts); err != nil {
			return refuse(sp, "%s: %v", gaSystem, err)
		}
		// The parts of one instruction (Gemini's systemInstruction,
		// Anthropic's system blocks) are one system prompt, as the wire
		// formats decode them: joined by newlines.
		var texts []string
		for _, p := range parts {
			if p.Type != "text" {
				return refuse(sp, "%s: a part of type %q: only text system instructions are imported", gaSystem, p.Type)
			}
			texts = append(texts, textOf(p.Content))
		}
		c.System = []string{}
		if len(texts) > 0 {
			c.System = append(c.System, strings.Join(texts, "\n"))
		}
	}
	if raw := attrs[gaToolDefs]; raw != nil {
		var defs []struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		if err := decodeStructured(raw, &defs); err != nil {
			return refuse(sp, "%s: %v", gaToolDefs, err)
		}
		c.Tools = []llm.ToolDefinition{}
		for _, d := range defs {
			if d.Name == "" {
				return refuse(sp, "%s: a tool without a name", gaToolDefs)
			}
			c.Tools = append(c.Tools, llm.ToolDefinition{Name: d.Name, Description: d.Description, Parameters: compactJSON(d.Parameters)})
		}
	}
	if raw := attrs[gaInput]; raw != nil {
		var ms []gaMessage
		if err := decodeStructured(raw, &ms); err != nil {
			return refuse(sp, "%s: %v", gaInput, err)
		}
		for i, m := range ms {
			out, err := m.messages()
			if err != nil {
				return refuse(sp, "%s[%d]: %v", gaInput, i, err)
			}
			c.Input = append(c.Input, out...)
		}
	}
	if raw := attrs[gaOutput]; raw != nil {
		var ms []gaMessage
		if err := decodeStructured(raw, &ms); err != nil {
			return refuse(sp, "%s: %v", gaOutput, err)
		}
		switch {
		case len(ms) > 1:
			return refuse(sp, "%s: %d choices; a tape replays one answer per call", gaOutput, len(ms))
		case len(ms) == 1:
			out, err := ms[0].messages()
			if err != nil {
				return refuse(sp, "%s[0]: %v", gaOutput, err)
			}
			if len(out) != 1 || out[0].Role != llm.RoleAssistant {
				return refuse(sp, "%s[0]: the answer is not one assistant message", gaOutput)
			}
			c.Output = &out[0]
			if ms[0].FinishReason != "" {
				c.FinishReason = ms[0].FinishReason
			}
		}
	}
	return nil
}

// gaMessage is a message of gen_ai.input.messages or
// gen_ai.output.messages.
type gaMessage struct {
	Role         string   `json:"role"`
	Name         string   `json:"name"`
	Parts        []gaPart `json:"parts"`
	FinishReason string   `json:"finish_reason"`
}

// gaPart is a part of a message or of the system instructions.
type gaPart struct {
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// Response is the result of a tool_call_response part; the
	// conventions' schema names it response, some instrumentations result.
	Response json.RawMessage `json:"response"`
	Result   json.RawMessage `json:"result"`
}

// messages returns m as tapeloop messages: one message, or one tool message
// per tool_call_response part.
func (m gaMessage) messages() ([]llm.Message, error) {
	role, err := roleOf(m.Role)
	if err != nil {
		return nil, err
	}
	msg := llm.Message{Role: role}
	var texts []string
	var results []llm.Message
	for j, p := range m.Parts {
		switch p.Type {
		case "text":
			texts = append(texts, textOf(p.Content))
		case "reasoning", "thinking":
			msg.Reasoning = append(msg.Reasoning, llm.Reasoning{Text: textOf(p.Content)})
		case "tool_call":
			if p.Name == "" {
				return nil, fmt.Errorf("parts[%d]: a tool_call without a name", j)
			}
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: p.ID, Name: p.Name, Arguments: argumentsText(p.Arguments)})
		case "tool_call_response":
			res := p.Response
			if res == nil {
				res = p.Result
			}
			results = append(results, llm.Message{Role: llm.RoleTool, ToolCallID: strings.TrimSpace(p.ID), Name: p.Name, Content: textOf(res)})
		default:
			return nil, fmt.Errorf("parts[%d]: a part of type %q; only text, reasoning, tool_call and tool_call_response parts are imported (images, files and server-side tools are not)", j, p.Type)
		}
	}
	if len(results) > 0 {
		if len(texts) > 0 || len(msg.ToolCalls) > 0 {
			return nil, fmt.Errorf("a message holds tool results beside text or calls")
		}
		return results, nil
	}
	if role == llm.RoleAssistant {
		msg.Content = strings.Join(texts, "")
	} else {
		msg.Content = strings.Join(texts, "\n")
	}
	if len(msg.ToolCalls) > 0 && role != llm.RoleAssistant {
		return nil, fmt.Errorf("a %s message holds tool calls", m.Role)
	}
	if role == llm.RoleTool {
		msg.Name = m.Name
	}
	return []llm.Message{msg}, nil
}

// roleOf maps a recorded role to tapeloop's ("model" is Gemini's assistant).
func roleOf(role string) (llm.Role, error) {
	switch role {
	case "system", "developer":
		return llm.RoleSystem, nil
	case "user", "human":
		return llm.RoleUser, nil
	case "assistant", "model", "ai":
		return llm.RoleAssistant, nil
	case "tool", "function", "ipython":
		return llm.RoleTool, nil
	}
	return "", fmt.Errorf("unknown role %q", role)
}

// readGenAIEvents reads the 1.28-1.36 message events, in order.
func (c *Call) readGenAIEvents() error {
	sp := c.Span
	for _, ev := range sp.Events {
		var role llm.Role
		switch ev.Name {
		case "gen_ai.system.message":
			role = llm.RoleSystem
		case "gen_ai.user.message":
			role = llm.RoleUser
		case "gen_ai.assistant.message":
			role = llm.RoleAssistant
		case "gen_ai.tool.message":
			role = llm.RoleTool
		case "gen_ai.choice":
			var ch struct {
				FinishReason string          `json:"finish_reason"`
				Message      eventBody       `json:"message"`
				Index        int             `json:"index"`
				Content      json.RawMessage `json:"content"`
			}
			if err := decodeStructured(ev.Body, &ch); err != nil {
				return refuse(sp, "event gen_ai.choice: body: %v", err)
			}
			if ch.Index != 0 {
				continue // a tape replays the first choice
			}
			if elided(ch.Content) || elided(ch.Message.Content) {
				return noContent(sp)
			}
			m, err := ch.Message.message(llm.RoleAssistant)
			if err != nil {
				return refuse(sp, "event gen_ai.choice: %v", err)
			}
			c.Output, c.FinishReason = &m, strings.ToLower(ch.FinishReason)
			continue
		default:
			continue
		}
		var b eventBody
		if err := decodeStructured(ev.Body, &b); err != nil {
			return refuse(sp, "event %s: body: %v", ev.Name, err)
		}
		if elided(b.Content) {
			return noContent(sp)
		}
		m, err := b.message(role)
		if err != nil {
			return refuse(sp, "event %s: %v", ev.Name, err)
		}
		c.Input = append(c.Input, m)
	}
	return nil
}

// eventBody is the body of a 1.28-1.36 message event (or a choice's
// message).
type eventBody struct {
	Content   json.RawMessage `json:"content"`
	ID        string          `json:"id"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func (b eventBody) message(role llm.Role) (llm.Message, error) {
	m := llm.Message{Role: role, Content: textOf(b.Content)}
	for _, tc := range b.ToolCalls {
		if tc.Function.Name == "" {
			return m, fmt.Errorf("a tool call without a name")
		}
		m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: argumentsText(tc.Function.Arguments)})
	}
	if role == llm.RoleTool {
		m.ToolCallID = b.ID
	}
	return m, nil
}

// elided reports whether a recorded content is a placeholder for content
// that was not captured.
func elided(raw json.RawMessage) bool {
	s := jsonString(raw)
	return s == "<elided>" || s == "__REDACTED__"
}

// readGenAIPrompt reads the prompt and completion events of the
// conventions before 1.28: gen_ai.prompt holds the messages sent (JSON, or
// the text of one user message), gen_ai.completion the answer.
func (c *Call) readGenAIPrompt() error {
	sp := c.Span
	for _, ev := range sp.Events {
		var key string
		switch ev.Name {
		case "gen_ai.content.prompt":
			key = "gen_ai.prompt"
		case "gen_ai.content.completion":
			key = "gen_ai.completion"
		default:
			continue
		}
		raw := ev.Attrs[key]
		if raw == nil {
			return noContent(sp)
		}
		ms, err := promptMessages(raw)
		if err != nil {
			return refuse(sp, "event %s: %s: %v", ev.Name, key, err)
		}
		if key == "gen_ai.prompt" {
			c.Input = append(c.Input, ms...)
			continue
		}
		if len(ms) == 1 && ms[0].Role == llm.RoleUser {
			ms[0].Role = llm.RoleAssistant // a completion given as plain text
		}
		if len(ms) != 1 || ms[0].Role != llm.RoleAssistant {
			return refuse(sp, "event %s: %s is not one assistant message", ev.Name, key)
		}
		c.Output = &ms[0]
	}
	return nil
}

// promptMessages reads gen_ai.prompt or gen_ai.completion: a JSON list of
// {role, content, tool_calls} messages, or plain text (one user message).
func promptMessages(raw json.RawMessage) ([]llm.Message, error) {
	text := jsonString(raw)
	var list []struct {
		Role string `json:"role"`
		eventBody
		ToolCallID string `json:"tool_call_id"`
	}
	if err := decodeStructured(json.RawMessage(text), &list); err != nil || len(list) == 0 || list[0].Role == "" {
		if elided(raw) {
			return nil, nil
		}
		return []llm.Message{llm.UserMessage(text)}, nil
	}
	var out []llm.Message
	for _, m := range list {
		role, err := roleOf(m.Role)
		if err != nil {
			return nil, err
		}
		msg, err := m.message(role)
		if err != nil {
			return nil, err
		}
		if role == llm.RoleTool && m.ToolCallID != "" {
			msg.ToolCallID = m.ToolCallID
		}
		out = append(out, msg)
	}
	return out, nil
}

// genAIUsage reads the token counts (the 1.27+ names, then the older
// prompt_tokens and completion_tokens).
func genAIUsage(sp *Span) llm.Usage {
	n := func(keys ...string) int {
		for _, k := range keys {
			var v int
			if json.Unmarshal(sp.attr(k), &v) == nil && v > 0 {
				return v
			}
		}
		return 0
	}
	return llm.Usage{
		InputTokens:       n("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"),
		OutputTokens:      n("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"),
		CachedInputTokens: n("gen_ai.usage.cache_read.input_tokens"),
		CacheWriteTokens:  n("gen_ai.usage.cache_creation.input_tokens"),
		ReasoningTokens:   n("gen_ai.usage.reasoning.output_tokens"),
	}
}

// errorText is the error of a failed span: its status message, else its
// error.type, else "error".
func errorText(sp *Span) string {
	if sp.StatusMessage != "" {
		return sp.StatusMessage
	}
	if t := sp.str("error.type"); t != "" {
		return t
	}
	return "error"
}

// structured returns the JSON value an attribute holds: the attribute
// itself when it is structured, or the JSON text a string attribute holds
// (the conventions allow either). A string that is not JSON is returned as
// the JSON string it is.
func structured(raw json.RawMessage) (json.RawMessage, error) {
	if firstByte(raw) != '"' {
		return raw, nil
	}
	s := jsonString(raw)
	t := bytes.TrimSpace([]byte(s))
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		if _, ok := checkDepth(t, MaxDepth); !ok {
			return nil, fmt.Errorf("JSON nested more than %d levels deep", MaxDepth)
		}
		var v any
		if err := json.Unmarshal(t, &v); err != nil {
			return nil, fmt.Errorf("the JSON text it holds does not parse: %v", err)
		}
		return t, nil
	}
	return raw, nil
}

// decodeStructured decodes the JSON value an attribute holds into v.
func decodeStructured(raw json.RawMessage, v any) error {
	j, err := structured(raw)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(j, v); err != nil {
		return fmt.Errorf("not the shape the conventions give it: %v", err)
	}
	return nil
}

// textOf returns a recorded content as text: a JSON string's value, other
// JSON compacted; absent or null is "".
func textOf(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(compactJSON(raw))
}

// argumentsText returns a tool call's arguments as the model emitted
// them: a JSON string is the emitted text itself (broken JSON and all), an
// object is compacted with its keys in order, absent is {}.
func argumentsText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(compactJSON(raw))
}

// compactJSON returns raw without insignificant space; nil for nil.
func compactJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
