package wire

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// responsesRequest is a Responses API request body.
type responsesRequest struct {
	Model              string          `json:"model"`
	Input              json.RawMessage `json:"input"`
	Instructions       json.RawMessage `json:"instructions"`
	Tools              json.RawMessage `json:"tools"`
	Stream             bool            `json:"stream"`
	PreviousResponseID string          `json:"previous_response_id"`
	responsesParams
}

// responsesParams are the Responses API parameters that change the
// model's behaviour, kept as sent (see Call.Request.Params). Not among
// them, and so not compared: store, metadata, user, safety_identifier,
// prompt_cache_key, prompt_cache_retention, prompt_cache_options,
// service_tier, include, top_logprobs, stream_options, background
// (docs/record.md).
type responsesParams struct {
	ToolChoice        json.RawMessage `json:"tool_choice"`
	ParallelToolCalls json.RawMessage `json:"parallel_tool_calls"`
	Temperature       json.RawMessage `json:"temperature"`
	TopP              json.RawMessage `json:"top_p"`
	MaxOutputTokens   json.RawMessage `json:"max_output_tokens"`
	MaxToolCalls      json.RawMessage `json:"max_tool_calls"`
	Text              json.RawMessage `json:"text"`
	Reasoning         json.RawMessage `json:"reasoning"`
	Truncation        json.RawMessage `json:"truncation"`
	Prompt            json.RawMessage `json:"prompt"`
	Conversation      json.RawMessage `json:"conversation"`
	// ContextManagement compacts the conversation the model sees past a
	// threshold; Moderation runs a moderation model on the input and the
	// output; AccessPrograms selects the safety program the model answers
	// under.
	ContextManagement json.RawMessage `json:"context_management"`
	Moderation        json.RawMessage `json:"moderation"`
	AccessPrograms    json.RawMessage `json:"access_programs"`
}

// params returns p by wire name, text without its format's schema (pinned
// as the response schema).
func (p responsesParams) params(model string) map[string]json.RawMessage {
	return paramsOf(model, map[string]json.RawMessage{
		"tool_choice": p.ToolChoice, "parallel_tool_calls": p.ParallelToolCalls,
		"temperature": p.Temperature, "top_p": p.TopP, "max_output_tokens": p.MaxOutputTokens,
		"max_tool_calls": p.MaxToolCalls, "text": withoutFormatSchema(p.Text),
		"reasoning": p.Reasoning, "truncation": p.Truncation,
		"prompt": p.Prompt, "conversation": p.Conversation,
		"context_management": p.ContextManagement, "moderation": p.Moderation,
		"access_programs": p.AccessPrograms,
	})
}

// responsesText is a request's text option: the format of the answer.
type responsesText struct {
	Format *struct {
		Type   string          `json:"type"`
		Schema json.RawMessage `json:"schema"`
	} `json:"format"`
}

// responsesItem is one item of a request's input: a message (with a role,
// its type "message" or absent), a function_call, a function_call_output
// or a reasoning item.
type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

// responsesTool is a function tool: flat, unlike Chat Completions'.
type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// decodeResponses decodes a Responses API request body, reusing what last
// holds of the previous request (see Decoder), and on success makes last
// this request's; a nil last decodes it whole. The instructions become the
// first system message; input given as a string is one user message; the
// input items become messages: system and developer messages system ones,
// an assistant's message, function calls and reasoning items one
// assistant message until another role speaks, each function_call_output
// a tool message named after the call it answers. A reasoning item is kept
// as it came (llm.Reasoning.Signature holds its JSON, keys sorted). The
// error wraps ErrRequest.
func decodeResponses(body []byte, last *decoded) (*Call, error) {
	var r responsesRequest
	sent, err := last.unmarshal(body, bodyFuncs{
		counted: func(text []byte) (*rawList, error) {
			var c responsesCounted
			err := json.Unmarshal(text, &c)
			r = c.responsesRequest
			return &c.Input, err
		},
		plain: func() ([]json.RawMessage, error) {
			r = responsesRequest{}
			if err := json.Unmarshal(body, &r); err != nil {
				return nil, err
			}
			// An input that is a list is its items; any other is read
			// below (a string, or an error naming the input).
			var raws []json.RawMessage
			if in := bytes.TrimSpace(r.Input); len(in) > 0 && in[0] == '[' && json.Unmarshal(in, &raws) == nil {
				r.Input = nil
			}
			return raws, nil
		},
		keep:  func() any { return r },
		reuse: func(v any) { r = v.(responsesRequest) },
		fresh: responsesElements.fresh,
	})
	if err != nil {
		return nil, requestErrorf("responses body: %v", err)
	}
	c := &Call{Format: Responses, Model: r.Model, Stream: r.Stream, PreviousResponseID: r.PreviousResponseID, digest: last.digest(body, &sent)}
	c.Request.Params = r.responsesParams.params(r.Model)
	if len(compact(r.Text)) > 0 {
		var t responsesText
		if err := json.Unmarshal(r.Text, &t); err != nil {
			return nil, requestErrorf("text: %v", err)
		}
		if t.Format != nil && t.Format.Type == "json_schema" {
			c.Request.ResponseSchema = compact(t.Format.Schema)
		}
	}
	c.Request.Messages = []llm.Message{}
	if ins := compact(r.Instructions); ins != nil {
		var text string
		if err := json.Unmarshal(ins, &text); err != nil {
			return nil, requestErrorf("instructions: %v", err)
		}
		if text != "" {
			c.Request.Messages = append(c.Request.Messages, llm.SystemMessage(text))
			c.instructions = 1
		}
	}
	// r.Input is set only when the input is not a list of items.
	if in := bytes.TrimSpace(r.Input); len(in) > 0 && string(in) != "null" {
		if in[0] != '"' {
			var raws []json.RawMessage
			err := json.Unmarshal(in, &raws)
			return nil, requestErrorf("input: %v", err)
		}
		var s string
		if err := json.Unmarshal(in, &s); err != nil {
			return nil, requestErrorf("input: %v", err)
		}
		c.Request.Messages = append(c.Request.Messages, llm.UserMessage(s))
		sent.raw = nil
	}
	if err := last.request(c, sent, r.Tools, responsesElements, responsesTools); err != nil {
		return nil, err
	}
	return c, nil
}

// responsesCounted is responsesRequest with its input read for the
// Decoder (a list of items; any other input fails it, and the body is
// decoded plainly).
type responsesCounted struct {
	responsesRequest
	Input rawList `json:"input"`
}

// responsesElements decodes a Responses request's input items, each into
// at most one message: an assistant item (an assistant's message, a
// function call, a reasoning item) into an assistant message of its own,
// joined to the assistant message before it (see elements.join).
var responsesElements = elements{
	join:  true,
	fresh: func() any { return new(responsesItem) },
	messages: func(i int, raw json.RawMessage, v any, names map[string]string) ([]llm.Message, error) {
		if v == nil {
			it := new(responsesItem)
			if err := json.Unmarshal(raw, it); err != nil {
				return nil, requestErrorf("input[%d]: %v", i, err)
			}
			v = it
		}
		return responsesElement(i, raw, v.(*responsesItem), names)
	},
}

// responsesElement makes input[i], raw, decoded as it: the message it
// becomes, alone (see responsesElements).
func responsesElement(i int, raw json.RawMessage, it *responsesItem, names map[string]string) ([]llm.Message, error) {
	switch it.Type {
	case "", "message":
		text, err := responsesContent(it.Content)
		if err != nil {
			return nil, requestErrorf("input[%d].content: %v", i, err)
		}
		switch it.Role {
		case "system", "developer":
			return []llm.Message{llm.SystemMessage(text)}, nil
		case "user":
			return []llm.Message{llm.UserMessage(text)}, nil
		case "assistant":
			return []llm.Message{{Role: llm.RoleAssistant, Content: text}}, nil
		default:
			return nil, requestErrorf("input[%d].role: unknown role %q", i, it.Role)
		}
	case "function_call":
		args, err := openAIArguments(it.Arguments)
		if err != nil {
			return nil, requestErrorf("input[%d].arguments: %v", i, err)
		}
		names[it.CallID] = it.Name
		return []llm.Message{{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: it.CallID, Name: it.Name, Arguments: args}}}}, nil
	case "function_call_output":
		out, err := responsesContent(it.Output)
		if err != nil {
			return nil, requestErrorf("input[%d].output: %v", i, err)
		}
		return []llm.Message{llm.ToolMessage(it.CallID, names[it.CallID], out)}, nil
	case "reasoning":
		var texts []string
		for _, s := range it.Summary {
			texts = append(texts, s.Text)
		}
		return []llm.Message{{Role: llm.RoleAssistant, Reasoning: []llm.Reasoning{{Text: strings.Join(texts, "\n\n"), Signature: canonicalJSON(raw)}}}}, nil
	default:
		return nil, requestErrorf("input[%d].type: %q items are not supported (only messages, function calls and their outputs, and reasoning)", i, it.Type)
	}
}

// responsesContent reads a message's content or a call's output: a string,
// null, or a list of parts whose text parts (input_text, output_text, and
// the rest with a text) are joined by newlines; other parts (images,
// files) are dropped.
func responsesContent(raw json.RawMessage) (string, error) {
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
		Type    string  `json:"type"`
		Text    *string `json:"text"`
		Refusal *string `json:"refusal"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", err
	}
	var texts []string
	for _, p := range parts {
		switch {
		case p.Text != nil:
			texts = append(texts, *p.Text)
		case p.Type == "refusal" && p.Refusal != nil:
			texts = append(texts, *p.Refusal)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// responsesTools decodes the tools array: function tools only.
func responsesTools(raw json.RawMessage) ([]llm.ToolDefinition, error) {
	if len(compact(raw)) == 0 {
		return nil, nil
	}
	var tools []responsesTool
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, requestErrorf("tools: %v", err)
	}
	var defs []llm.ToolDefinition
	for i, t := range tools {
		if t.Type != "function" {
			return nil, requestErrorf("tools[%d].type: %q tools are not supported (only function tools)", i, t.Type)
		}
		defs = append(defs, llm.ToolDefinition{Name: t.Name, Description: t.Description, Parameters: compact(t.Parameters)})
	}
	return defs, nil
}

// withoutFormatSchema returns an object holding a format (a Responses
// request's text option, a Messages request's output_config) without the
// format's schema (the request's response schema, pinned apart).
func withoutFormatSchema(raw json.RawMessage) json.RawMessage {
	var text map[string]json.RawMessage
	if json.Unmarshal(raw, &text) != nil || text == nil {
		return raw
	}
	var format map[string]json.RawMessage
	if json.Unmarshal(text["format"], &format) != nil || format == nil {
		return raw
	}
	if _, ok := format["schema"]; !ok {
		return raw
	}
	delete(format, "schema")
	text["format"] = marshal(format)
	return marshal(text)
}

// canonicalJSON returns raw as JSON with its objects' keys sorted and no
// insignificant space, so that an item sent back re-encoded by a client
// compares equal to the one it was given; raw itself when it is not JSON.
func canonicalJSON(raw json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	b, err := json.Marshal(v) // encoding/json sorts map keys
	if err != nil {
		return string(raw)
	}
	return string(b)
}
