package wire

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

type openAIRequest struct {
	Model         string            `json:"model"`
	Messages      []json.RawMessage `json:"messages"`
	Tools         json.RawMessage   `json:"tools"`
	Stream        bool              `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	openAIParams
}

// openAIResponseFormat is a request's response_format.
type openAIResponseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Schema json.RawMessage `json:"schema"`
	} `json:"json_schema"`
}

// openAIParams are the Chat Completions parameters that change the
// model's behaviour, kept as sent (see Call.Request.Params).
type openAIParams struct {
	ToolChoice          json.RawMessage `json:"tool_choice"`
	ParallelToolCalls   json.RawMessage `json:"parallel_tool_calls"`
	Temperature         json.RawMessage `json:"temperature"`
	TopP                json.RawMessage `json:"top_p"`
	MaxTokens           json.RawMessage `json:"max_tokens"`
	MaxCompletionTokens json.RawMessage `json:"max_completion_tokens"`
	Stop                json.RawMessage `json:"stop"`
	ReasoningEffort     json.RawMessage `json:"reasoning_effort"`
	Seed                json.RawMessage `json:"seed"`
	FrequencyPenalty    json.RawMessage `json:"frequency_penalty"`
	PresencePenalty     json.RawMessage `json:"presence_penalty"`
	N                   json.RawMessage `json:"n"`
	ResponseFormat      json.RawMessage `json:"response_format"`
	// LogitBias raises or bans tokens; Verbosity asks for shorter or longer
	// answers; WebSearchOptions lets the model search the web first;
	// Modalities and Audio ask for a spoken answer and its voice;
	// Moderation runs a moderation model on the input and the output.
	LogitBias        json.RawMessage `json:"logit_bias"`
	Verbosity        json.RawMessage `json:"verbosity"`
	WebSearchOptions json.RawMessage `json:"web_search_options"`
	Modalities       json.RawMessage `json:"modalities"`
	Audio            json.RawMessage `json:"audio"`
	Moderation       json.RawMessage `json:"moderation"`
	// Functions and FunctionCall are the deprecated forms of tools and
	// tool_choice, pinned as sent (whole: names, descriptions, schemas),
	// since tapeloop does not serve a legacy function_call answer.
	Functions    json.RawMessage `json:"functions"`
	FunctionCall json.RawMessage `json:"function_call"`
}

// params returns p by wire name, the response format without its schema
// (pinned as the response schema).
func (p openAIParams) params(model string) map[string]json.RawMessage {
	return paramsOf(model, map[string]json.RawMessage{
		"tool_choice": p.ToolChoice, "parallel_tool_calls": p.ParallelToolCalls,
		"temperature": p.Temperature, "top_p": p.TopP, "max_tokens": p.MaxTokens,
		"max_completion_tokens": p.MaxCompletionTokens, "stop": p.Stop,
		"reasoning_effort": p.ReasoningEffort, "seed": p.Seed,
		"frequency_penalty": p.FrequencyPenalty, "presence_penalty": p.PresencePenalty,
		"n": p.N, "response_format": withoutSchema(p.ResponseFormat),
		"logit_bias": p.LogitBias, "verbosity": p.Verbosity, "web_search_options": p.WebSearchOptions,
		"modalities": p.Modalities, "audio": p.Audio, "moderation": p.Moderation,
		"functions": p.Functions, "function_call": p.FunctionCall,
	})
}

type openAIMessage struct {
	Role       string           `json:"role"`
	Content    json.RawMessage  `json:"content"`
	ToolCalls  []openAIToolCall `json:"tool_calls"`
	ToolCallID string           `json:"tool_call_id"`
	Name       string           `json:"name"`
	// ReasoningContent is sent back by some compatible clients; kept.
	ReasoningContent string `json:"reasoning_content"`
}

type openAIToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type openAITool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// DecodeOpenAI decodes a Chat Completions request body. System and developer
// messages become system messages in place; content given as parts keeps
// its text parts (joined by newlines); a tool message without a name gets
// the name of the call it answers. The error wraps ErrRequest.
func DecodeOpenAI(body []byte) (*Call, error) { return decodeOpenAI(body, nil) }

// openAICounted is openAIRequest with its messages read for the Decoder.
type openAICounted struct {
	openAIRequest
	Messages rawList `json:"messages"`
}

// decodeOpenAI decodes body reusing what last holds of the previous
// request (see Decoder), and on success makes last this request's; a nil
// last decodes it whole.
func decodeOpenAI(body []byte, last *decoded) (*Call, error) {
	var r openAIRequest
	sent, err := last.unmarshal(body, bodyFuncs{
		counted: func(text []byte) (*rawList, error) {
			var c openAICounted
			err := json.Unmarshal(text, &c)
			r = c.openAIRequest
			return &c.Messages, err
		},
		plain: func() ([]json.RawMessage, error) {
			r = openAIRequest{}
			err := json.Unmarshal(body, &r)
			return r.Messages, err
		},
		keep:  func() any { return r },
		reuse: func(v any) { r = v.(openAIRequest) },
		fresh: openAIElements.fresh,
	})
	if err != nil {
		return nil, requestErrorf("chat completions body: %v", err)
	}
	c := &Call{Format: OpenAI, Model: r.Model, Stream: r.Stream}
	c.Request.Params = r.openAIParams.params(r.Model)
	if r.StreamOptions != nil {
		c.IncludeUsage = r.StreamOptions.IncludeUsage
	}
	if rf := compact(r.ResponseFormat); rf != nil {
		var f openAIResponseFormat
		if err := json.Unmarshal(rf, &f); err != nil {
			return nil, requestErrorf("response_format: %v", err)
		}
		if f.Type == "json_schema" && f.JSONSchema != nil && len(f.JSONSchema.Schema) > 0 {
			c.Request.ResponseSchema = compact(f.JSONSchema.Schema)
		}
	}
	if err := last.request(c, sent, r.Tools, openAIElements, openAITools); err != nil {
		return nil, err
	}
	if c.Request.Messages == nil {
		c.Request.Messages = []llm.Message{}
	}
	return c, nil
}

// openAIElements decodes a Chat Completions request's messages, each in
// one pass when it can (see openAIPlain).
var openAIElements = elements{
	fresh: func() any { return new(openAIPlain) },
	messages: func(i int, raw json.RawMessage, v any, names map[string]string) ([]llm.Message, error) {
		if v != nil {
			if m, ok := v.(*openAIPlain).message(names); ok {
				return []llm.Message{m}, nil
			}
		}
		var m openAIMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, requestErrorf("messages[%d]: %v", i, err)
		}
		return openAIElement(i, &m, names)
	},
}

// openAIPlain is openAIMessage with the content and each call's arguments
// decoded in the same pass as the rest, for the common message whose
// content and arguments are JSON strings (or null, or absent): decoding a
// JSON string into an interface gives the string json.Unmarshal into a
// string gives, so such a message becomes what openAIElement makes of it,
// without scanning those strings twice more (as a json.RawMessage, then
// again to unquote it). Any other message (content parts, arguments sent as
// an object, a role it does not know) is decoded again as openAIMessage,
// which then decides, errors included.
type openAIPlain struct {
	Role      string `json:"role"`
	Content   any    `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments any    `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID       string `json:"tool_call_id"`
	Name             string `json:"name"`
	ReasoningContent string `json:"reasoning_content"`
}

// message returns the message m is, as openAIElement makes it, adding its
// calls to names; ok is false (and names unchanged) when m is not a plain
// message, to be decoded as openAIMessage instead.
func (m *openAIPlain) message(names map[string]string) (llm.Message, bool) {
	content, ok := plainString(m.Content)
	if !ok {
		return llm.Message{}, false
	}
	var calls []llm.ToolCall
	if m.Role == "assistant" {
		for _, tc := range m.ToolCalls {
			args, ok := plainString(tc.Function.Arguments)
			if !ok {
				return llm.Message{}, false
			}
			calls = append(calls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args})
		}
	}
	return openAIRoleMessage(m.Role, content, m.ReasoningContent, calls, m.ToolCallID, m.Name, names)
}

// plainString is the text of a JSON value decoded into an interface when
// it was a string or null (absent too): "" for null; ok is false for any
// other value.
func plainString(v any) (s string, ok bool) {
	switch v := v.(type) {
	case nil:
		return "", true
	case string:
		return v, true
	}
	return "", false
}

// openAIElement makes messages[i], decoded as m.
func openAIElement(i int, m *openAIMessage, names map[string]string) ([]llm.Message, error) {
	text, err := openAIText(m.Content)
	if err != nil {
		return nil, requestErrorf("messages[%d].content: %v", i, err)
	}
	var calls []llm.ToolCall
	if m.Role == "assistant" {
		for j, tc := range m.ToolCalls {
			args, err := openAIArguments(tc.Function.Arguments)
			if err != nil {
				return nil, requestErrorf("messages[%d].tool_calls[%d].function.arguments: %v", i, j, err)
			}
			calls = append(calls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args})
		}
	}
	msg, ok := openAIRoleMessage(m.Role, text, m.ReasoningContent, calls, m.ToolCallID, m.Name, names)
	if !ok {
		return nil, requestErrorf("messages[%d].role: unknown role %q", i, m.Role)
	}
	return []llm.Message{msg}, nil
}

// openAIRoleMessage makes the message of a Chat Completions role from its
// decoded parts (calls and reasoning count for an assistant only): system
// and developer messages become system messages, a tool result without a
// name gets the name of the call it answers (from names), and an
// assistant's calls are added to names. ok is false, and names unchanged,
// for a role it does not know.
func openAIRoleMessage(role, content, reasoning string, calls []llm.ToolCall, toolCallID, name string, names map[string]string) (msg llm.Message, ok bool) {
	msg.Content = content
	switch role {
	case "system", "developer":
		msg.Role = llm.RoleSystem
	case "user":
		msg.Role = llm.RoleUser
	case "assistant":
		msg.Role = llm.RoleAssistant
		if reasoning != "" {
			msg.Reasoning = []llm.Reasoning{{Text: reasoning}}
		}
		msg.ToolCalls = calls
		for _, c := range calls {
			names[c.ID] = c.Name
		}
	case "tool":
		msg.Role = llm.RoleTool
		msg.ToolCallID = toolCallID
		msg.Name = name
		if msg.Name == "" {
			msg.Name = names[toolCallID]
		}
	default:
		return llm.Message{}, false
	}
	return msg, true
}

// openAITools decodes the tools array.
func openAITools(raw json.RawMessage) ([]llm.ToolDefinition, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var tools []openAITool
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, requestErrorf("tools: %v", err)
	}
	var defs []llm.ToolDefinition
	for i, t := range tools {
		if t.Type != "" && t.Type != "function" {
			return nil, requestErrorf("tools[%d].type: %q tools are not supported (only function tools)", i, t.Type)
		}
		defs = append(defs, llm.ToolDefinition{
			Name: t.Function.Name, Description: t.Function.Description, Parameters: compact(t.Function.Parameters),
		})
	}
	return defs, nil
}

// openAIText reads a message's content: a string, null, or an array of
// parts whose text parts are joined by newlines (other parts are dropped).
func openAIText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", err
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// openAIArguments reads a call's arguments: a JSON string holding the text
// as the model emitted it, or (from lenient clients) an object, kept as its
// text.
func openAIArguments(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] != '"' {
		return string(raw), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// compact returns raw without insignificant space, or raw itself when it is
// not JSON; nil for empty or null.
func compact(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return b.Bytes()
}

// paramsOf returns the parameters of raw that were sent (not absent, not
// null), compacted, with the model when named; nil when none was.
func paramsOf(model string, raw map[string]json.RawMessage) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	if model != "" {
		out = map[string]json.RawMessage{"model": compact(json.RawMessage(strconv.Quote(model)))}
	}
	for k, v := range raw {
		if v = compact(v); v != nil {
			if out == nil {
				out = map[string]json.RawMessage{}
			}
			out[k] = v
		}
	}
	return out
}

// withoutSchema returns a response_format object without its
// json_schema.schema (the request's response schema, pinned apart).
func withoutSchema(raw json.RawMessage) json.RawMessage {
	var rf map[string]json.RawMessage
	if json.Unmarshal(raw, &rf) != nil || rf == nil {
		return raw
	}
	var js map[string]json.RawMessage
	if json.Unmarshal(rf["json_schema"], &js) != nil || js == nil {
		return raw
	}
	delete(js, "schema")
	b, err := json.Marshal(js)
	if err != nil {
		return raw
	}
	rf["json_schema"] = b
	out, err := json.Marshal(rf)
	if err != nil {
		return raw
	}
	return out
}

// withoutKey returns a JSON object without its key (raw itself when it is
// not an object or has no such key).
func withoutKey(raw json.RawMessage, key string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return raw
	}
	if _, ok := obj[key]; !ok {
		return raw
	}
	delete(obj, key)
	return marshal(obj)
}
