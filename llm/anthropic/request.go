package anthropic

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/tapeloop/tapeloop/llm"
)

// params builds the Messages request. System messages become the system
// prompt; consecutive tool results become one user message of tool_result
// blocks (is_error from the message); an assistant message sends its signed
// thinking blocks back first, as the API requires when thinking is on.
func (m *Model) params(ctx context.Context, req *llm.Request) (anthropic.MessageNewParams, error) {
	o := llm.RequestOptionsOf(ctx, m.opts.Request)
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(m.model),
		MaxTokens: int64(o.MaxTokens),
		Messages:  make([]anthropic.MessageParam, 0, len(req.Messages)),
	}
	if p.MaxTokens <= 0 {
		p.MaxTokens = DefaultMaxTokens
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case llm.RoleSystem:
			p.System = append(p.System, anthropic.TextBlockParam{Text: msg.Content})
		case llm.RoleUser:
			p.Messages = append(p.Messages, anthropic.NewUserMessage(anthropic.NewTextBlock(msg.Content)))
		case llm.RoleTool:
			block := anthropic.NewToolResultBlock(msg.ToolCallID, msg.Content, msg.IsError)
			if n := len(p.Messages); n > 0 && p.Messages[n-1].Role == anthropic.MessageParamRoleUser && isToolResults(p.Messages[n-1]) {
				p.Messages[n-1].Content = append(p.Messages[n-1].Content, block)
			} else {
				p.Messages = append(p.Messages, anthropic.NewUserMessage(block))
			}
		case llm.RoleAssistant:
			var blocks []anthropic.ContentBlockParamUnion
			for _, r := range msg.Reasoning {
				switch {
				case r.Redacted != "":
					blocks = append(blocks, anthropic.NewRedactedThinkingBlock(r.Redacted))
				case r.Signature != "":
					blocks = append(blocks, anthropic.NewThinkingBlock(r.Signature, r.Text))
				}
			}
			if msg.Content != "" {
				blocks = append(blocks, anthropic.NewTextBlock(msg.Content))
			}
			for _, c := range msg.ToolCalls {
				blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, toolInput(c.Arguments), c.Name))
			}
			if len(blocks) == 0 {
				blocks = append(blocks, anthropic.NewTextBlock(""))
			}
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(blocks...))
		default:
			return p, fmt.Errorf("message %d: unknown role %q", i+1, msg.Role)
		}
	}
	for _, t := range req.Tools {
		schema, err := m.schema(t.Parameters)
		if err != nil {
			return p, fmt.Errorf("tool %s: parameters: %w", t.Name, err)
		}
		tp := &anthropic.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tp.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: tp})
	}
	if o.Temperature != nil {
		p.Temperature = param.NewOpt(*o.Temperature)
	}
	if o.TopP != nil {
		p.TopP = param.NewOpt(*o.TopP)
	}
	if len(o.Stop) > 0 {
		p.StopSequences = o.Stop
	}
	noParallel := param.Opt[bool]{}
	if o.ParallelToolCalls != nil && !*o.ParallelToolCalls {
		noParallel = param.NewOpt(true)
	}
	switch o.ToolChoice {
	case "", "auto":
		if o.ToolChoice != "" || noParallel.Valid() {
			p.ToolChoice.OfAuto = &anthropic.ToolChoiceAutoParam{DisableParallelToolUse: noParallel}
		}
	case "none":
		p.ToolChoice.OfNone = &anthropic.ToolChoiceNoneParam{}
	case "required":
		p.ToolChoice.OfAny = &anthropic.ToolChoiceAnyParam{DisableParallelToolUse: noParallel}
	default:
		p.ToolChoice.OfTool = &anthropic.ToolChoiceToolParam{Name: o.ToolChoice, DisableParallelToolUse: noParallel}
	}
	if len(m.opts.ExtraBody) > 0 {
		p.SetExtraFields(m.opts.ExtraBody)
	}
	return p, nil
}

// isToolResults reports whether a user message holds only tool results.
func isToolResults(msg anthropic.MessageParam) bool {
	for _, b := range msg.Content {
		if b.OfToolResult == nil {
			return false
		}
	}
	return len(msg.Content) > 0
}

// toolInput sends a previous call's arguments back as they were when they
// are a JSON object, and as {} when the model emitted something else (the API
// accepts only an object).
func toolInput(args string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &obj) != nil || obj == nil {
		return json.RawMessage(`{}`)
	}
	return json.RawMessage(args)
}

// schema decodes a tool's input schema once per distinct text.
func (m *Model) schema(raw json.RawMessage) (anthropic.ToolInputSchemaParam, error) {
	if len(raw) == 0 {
		return anthropic.ToolInputSchemaParam{Properties: map[string]any{}}, nil
	}
	if v, ok := m.schemas.Load(string(raw)); ok {
		return v.(anthropic.ToolInputSchemaParam), nil
	}
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		return anthropic.ToolInputSchemaParam{}, err
	}
	s := anthropic.ToolInputSchemaParam{Properties: fields["properties"]}
	if req, ok := fields["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	delete(fields, "properties")
	delete(fields, "required")
	delete(fields, "type")
	if len(fields) > 0 {
		s.ExtraFields = fields
	}
	m.schemas.Store(string(raw), s)
	return s, nil
}
