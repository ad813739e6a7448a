package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tapeloop/tapeloop/llm"
)

// params builds the Responses API request: a first system message as the
// instructions, the rest of the conversation as input items (an
// assistant's reasoning items as they came, its text, its calls; each
// tool result a function_call_output), the tools as flat function tools,
// the response schema as text.format, and the request options. store is
// false: the conversation is sent whole every call.
func (m *ResponsesModel) params(ctx context.Context, req *llm.Request) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{Model: m.chat.model, Store: param.NewOpt(false)}
	msgs := req.Messages
	if len(msgs) > 0 && msgs[0].Role == llm.RoleSystem {
		p.Instructions = param.NewOpt(msgs[0].Content)
		msgs = msgs[1:]
	}
	items := make(responses.ResponseInputParam, 0, len(msgs))
	for i, msg := range msgs {
		switch msg.Role {
		case llm.RoleSystem, llm.RoleUser:
			items = append(items, responses.ResponseInputItemParamOfMessage(msg.Content, responses.EasyInputMessageRole(msg.Role)))
		case llm.RoleTool:
			items = append(items, responses.ResponseInputItemParamOfFunctionCallOutput(msg.Content))
			items[len(items)-1].OfFunctionCallOutput.CallID = param.NewOpt(msg.ToolCallID)
		case llm.RoleAssistant:
			for _, r := range msg.Reasoning {
				if item := reasoningParam(r); item != nil {
					items = append(items, param.Override[responses.ResponseInputItemUnionParam](item))
				}
			}
			if msg.Content != "" {
				items = append(items, responses.ResponseInputItemParamOfMessage(msg.Content, responses.EasyInputMessageRoleAssistant))
			}
			for _, c := range msg.ToolCalls {
				items = append(items, responses.ResponseInputItemParamOfFunctionCall(c.Arguments, c.ID, c.Name))
			}
		default:
			return p, fmt.Errorf("message %d: unknown role %q", i+1, msg.Role)
		}
	}
	p.Input.OfInputItemList = items
	for _, t := range req.Tools {
		schema, err := m.chat.schema(t.Parameters)
		if err != nil {
			return p, fmt.Errorf("tool %s: parameters: %w", t.Name, err)
		}
		tool := responses.ToolParamOfFunction(t.Name, schema, false)
		if t.Description != "" {
			tool.OfFunction.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, tool)
	}
	if len(req.ResponseSchema) > 0 {
		var schema map[string]any
		if err := json.Unmarshal(req.ResponseSchema, &schema); err != nil {
			return p, fmt.Errorf("response schema: %w", err)
		}
		p.Text.Format = responses.ResponseFormatTextConfigParamOfJSONSchema("answer", schema)
	}
	o := llm.RequestOptionsOf(ctx, m.chat.opts.Request)
	if o.Temperature != nil {
		p.Temperature = param.NewOpt(*o.Temperature)
	}
	if o.TopP != nil {
		p.TopP = param.NewOpt(*o.TopP)
	}
	if o.MaxTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(o.MaxTokens))
	}
	switch o.ToolChoice {
	case "":
	case "auto", "none", "required":
		p.ToolChoice.OfToolChoiceMode = param.NewOpt(responses.ToolChoiceOptions(o.ToolChoice))
	default:
		p.ToolChoice.OfFunctionTool = &responses.ToolChoiceFunctionParam{Name: o.ToolChoice}
	}
	if o.ParallelToolCalls != nil && len(req.Tools) > 0 {
		p.ParallelToolCalls = param.NewOpt(*o.ParallelToolCalls)
	}
	if len(m.chat.opts.ExtraBody) > 0 {
		p.SetExtraFields(m.chat.opts.ExtraBody)
	}
	return p, nil
}

// reasoningParam returns the reasoning item r holds as it came (its
// Signature, the item's JSON), to send back; nil when r holds none (a
// reasoning text without its item cannot be sent back).
func reasoningParam(r llm.Reasoning) json.RawMessage {
	s := bytes.TrimSpace([]byte(r.Signature))
	if len(s) == 0 || s[0] != '{' {
		return nil
	}
	var it struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(s, &it) != nil || it.Type != "reasoning" {
		return nil
	}
	return json.RawMessage(s)
}

// canonicalItem returns an item's JSON with its objects' keys sorted and
// no insignificant space: what wire.Responses keeps of a reasoning item.
func canonicalItem(raw string) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return string(b)
}
