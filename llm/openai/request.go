package openai

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"

	"github.com/tapeloop/tapeloop/llm"
)

// params builds the Chat Completions request: the conversation, the tools and
// the request options. Reasoning is never sent back: Chat Completions servers
// do not want it.
func (m *Model) params(ctx context.Context, req *llm.Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{
		Model:    m.model,
		Messages: make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Messages)),
	}
	for i, msg := range req.Messages {
		u, err := messageParam(msg)
		if err != nil {
			return p, fmt.Errorf("message %d: %w", i+1, err)
		}
		p.Messages = append(p.Messages, u)
	}
	if len(req.Tools) > 0 {
		p.Tools = make([]openai.ChatCompletionToolUnionParam, 0, len(req.Tools))
		for _, t := range req.Tools {
			schema, err := m.schema(t.Parameters)
			if err != nil {
				return p, fmt.Errorf("tool %s: parameters: %w", t.Name, err)
			}
			fn := openai.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
			if t.Description != "" {
				fn.Description = param.NewOpt(t.Description)
			}
			p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fn))
		}
	}
	o := llm.RequestOptionsOf(ctx, m.opts.Request)
	if o.Temperature != nil {
		p.Temperature = param.NewOpt(*o.Temperature)
	}
	if o.TopP != nil {
		p.TopP = param.NewOpt(*o.TopP)
	}
	if o.MaxTokens > 0 {
		if m.dialect.LegacyMaxTokens {
			p.MaxTokens = param.NewOpt(int64(o.MaxTokens))
		} else {
			p.MaxCompletionTokens = param.NewOpt(int64(o.MaxTokens))
		}
	}
	if o.Seed != nil {
		p.Seed = param.NewOpt(*o.Seed)
	}
	if len(o.Stop) > 0 {
		p.Stop.OfStringArray = o.Stop
	}
	switch o.ToolChoice {
	case "":
	case "auto", "none", "required":
		p.ToolChoice.OfAuto = param.NewOpt(o.ToolChoice)
	default:
		p.ToolChoice = openai.ToolChoiceOptionFunctionToolChoice(openai.ChatCompletionNamedToolChoiceFunctionParam{Name: o.ToolChoice})
	}
	if o.ParallelToolCalls != nil && len(req.Tools) > 0 {
		p.ParallelToolCalls = param.NewOpt(*o.ParallelToolCalls)
	}
	if !m.opts.NoStream {
		p.StreamOptions.IncludeUsage = param.NewOpt(true)
	}
	if len(m.opts.ExtraBody) > 0 {
		p.SetExtraFields(m.opts.ExtraBody)
	}
	return p, nil
}

// schema decodes a tool's parameter schema once per distinct text.
func (m *Model) schema(raw json.RawMessage) (openai.FunctionParameters, error) {
	if len(raw) == 0 {
		return openai.FunctionParameters{"type": "object", "properties": map[string]any{}}, nil
	}
	if v, ok := m.schemas.Load(string(raw)); ok {
		return v.(openai.FunctionParameters), nil
	}
	var fp openai.FunctionParameters
	if err := json.Unmarshal(raw, &fp); err != nil {
		return nil, err
	}
	m.schemas.Store(string(raw), fp)
	return fp, nil
}

// messageParam maps one message to the wire.
func messageParam(msg llm.Message) (openai.ChatCompletionMessageParamUnion, error) {
	switch msg.Role {
	case llm.RoleSystem:
		return openai.SystemMessage(msg.Content), nil
	case llm.RoleUser:
		return openai.UserMessage(msg.Content), nil
	case llm.RoleTool:
		return openai.ToolMessage(msg.Content, msg.ToolCallID), nil
	case llm.RoleAssistant:
		a := &openai.ChatCompletionAssistantMessageParam{}
		if msg.Content != "" || len(msg.ToolCalls) == 0 {
			a.Content.OfString = param.NewOpt(msg.Content)
		}
		if len(msg.ToolCalls) > 0 {
			a.ToolCalls = make([]openai.ChatCompletionMessageToolCallUnionParam, len(msg.ToolCalls))
			for i, c := range msg.ToolCalls {
				a.ToolCalls[i].OfFunction = &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       c.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: c.Arguments},
				}
			}
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: a}, nil
	}
	return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", msg.Role)
}
