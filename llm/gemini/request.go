package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/tapeloop/tapeloop/llm"
)

// request maps req and the model's RequestOptions to genai's contents and
// config: system messages become the system instruction (one part each);
// an assistant message a model turn (thoughts, text, calls with their
// signatures); tool results in a row one user turn of functionResponse
// parts (a result that is a JSON object is the response itself, any other
// text {"output": text}, or {"error": text} for a failed call).
func (m *Model) request(ctx context.Context, req *llm.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	cfg := &genai.GenerateContentConfig{}
	var contents []*genai.Content
	var results *genai.Content // the user turn tool results are gathered in
	for i, msg := range req.Messages {
		if msg.Role != llm.RoleTool {
			results = nil
		}
		switch msg.Role {
		case llm.RoleSystem:
			if cfg.SystemInstruction == nil {
				cfg.SystemInstruction = &genai.Content{Role: genai.RoleUser}
			}
			cfg.SystemInstruction.Parts = append(cfg.SystemInstruction.Parts, &genai.Part{Text: msg.Content})
		case llm.RoleUser:
			contents = append(contents, genai.NewContentFromText(msg.Content, genai.RoleUser))
		case llm.RoleAssistant:
			c, err := modelTurn(msg)
			if err != nil {
				return nil, nil, fmt.Errorf("messages[%d]: %w", i, err)
			}
			contents = append(contents, c)
		case llm.RoleTool:
			if results == nil {
				results = &genai.Content{Role: genai.RoleUser}
				contents = append(contents, results)
			}
			results.Parts = append(results.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{
				ID: msg.ToolCallID, Name: msg.Name, Response: resultObject(msg.Content, msg.IsError)}})
		default:
			return nil, nil, fmt.Errorf("messages[%d]: unknown role %q", i, msg.Role)
		}
	}
	if len(req.Tools) > 0 {
		decls := make([]*genai.FunctionDeclaration, len(req.Tools))
		for i, t := range req.Tools {
			d := &genai.FunctionDeclaration{Name: t.Name, Description: t.Description}
			if len(t.Parameters) > 0 {
				d.ParametersJsonSchema = json.RawMessage(t.Parameters)
			}
			decls[i] = d
		}
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	if len(req.ResponseSchema) > 0 {
		cfg.ResponseMIMEType = "application/json"
		cfg.ResponseJsonSchema = json.RawMessage(req.ResponseSchema)
	}
	o := llm.RequestOptionsOf(ctx, m.opts.Request)
	if o.Temperature != nil {
		t := float32(*o.Temperature)
		cfg.Temperature = &t
	}
	if o.TopP != nil {
		p := float32(*o.TopP)
		cfg.TopP = &p
	}
	if o.MaxTokens > 0 {
		cfg.MaxOutputTokens = int32(o.MaxTokens)
	}
	if o.Seed != nil {
		s := int32(*o.Seed)
		cfg.Seed = &s
	}
	cfg.StopSequences = o.Stop
	if o.ToolChoice != "" {
		fc := &genai.FunctionCallingConfig{}
		switch o.ToolChoice {
		case "auto":
			fc.Mode = genai.FunctionCallingConfigModeAuto
		case "none":
			fc.Mode = genai.FunctionCallingConfigModeNone
		case "required":
			fc.Mode = genai.FunctionCallingConfigModeAny
		default:
			fc.Mode, fc.AllowedFunctionNames = genai.FunctionCallingConfigModeAny, []string{o.ToolChoice}
		}
		cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: fc}
	}
	return contents, cfg, nil
}

// modelTurn is an assistant message as Gemini's model turn: thoughts,
// the text (carrying the signature of unshown thoughts), the calls with
// their ids, arguments and signatures.
func modelTurn(msg llm.Message) (*genai.Content, error) {
	c := &genai.Content{Role: genai.RoleModel}
	var sig []byte
	for _, r := range msg.Reasoning {
		switch {
		case r.Text != "":
			c.Parts = append(c.Parts, &genai.Part{Text: r.Text, Thought: true, ThoughtSignature: signature(r.Signature)})
		case r.Signature != "" && sig == nil:
			sig = signature(r.Signature)
		}
	}
	if msg.Content != "" || sig != nil {
		c.Parts = append(c.Parts, &genai.Part{Text: msg.Content, ThoughtSignature: sig})
	}
	for j, tc := range msg.ToolCalls {
		var args map[string]any
		if strings.TrimSpace(tc.Arguments) != "" {
			if err := json.Unmarshal([]byte(tc.Arguments), &args); err != nil {
				return nil, fmt.Errorf("tool_calls[%d] (%s): the arguments are not a JSON object: %v", j, tc.Name, err)
			}
		}
		c.Parts = append(c.Parts, &genai.Part{FunctionCall: &genai.FunctionCall{ID: tc.ID, Name: tc.Name, Args: args}, ThoughtSignature: signature(tc.Signature)})
	}
	if len(c.Parts) == 0 {
		c.Parts = []*genai.Part{{Text: ""}}
	}
	return c, nil
}

// resultObject is a tool result as a functionResponse's response object.
func resultObject(content string, isError bool) map[string]any {
	if t := bytes.TrimSpace([]byte(content)); len(t) > 0 && t[0] == '{' {
		var obj map[string]any
		if json.Unmarshal(t, &obj) == nil {
			return obj
		}
	}
	if isError {
		return map[string]any{"error": content}
	}
	return map[string]any{"output": content}
}
