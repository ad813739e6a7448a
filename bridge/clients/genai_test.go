package clients_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/bridge/internal/clientproof"
	_ "github.com/tapeloop/tapeloop/llm/gemini" // registers gemini/
)

// geminiModes are the function calling modes of clientproof.ModelKnobs.Choice.
var geminiModes = map[string]genai.FunctionCallingConfigMode{"auto": genai.FunctionCallingConfigModeAuto, "forced": genai.FunctionCallingConfigModeAny}

// genaiAgent is an agent loop written on google.golang.org/genai, as its
// README shows one: contents kept by the agent, each model turn appended
// as genai parsed it (thought signatures and all), function responses
// answering the calls by name and id. With stream set it gathers each
// answer's parts from GenerateContentStream.
func genaiAgent(stream bool) func(k clientproof.ModelKnobs) bridge.Agent {
	return func(k clientproof.ModelKnobs) bridge.Agent {
		return func(ctx context.Context, r *bridge.Run) error {
			client, err := genai.NewClient(ctx, &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: r.APIKey,
				HTTPClient: r.HTTPClient, HTTPOptions: genai.HTTPOptions{BaseURL: r.GeminiBaseURL}})
			if err != nil {
				return err
			}
			cfg := &genai.GenerateContentConfig{
				SystemInstruction: genai.NewContentFromText(k.System, genai.RoleUser),
				Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{
					{Name: "read_file", Description: k.ReadDesc, ParametersJsonSchema: json.RawMessage(clientproof.ReadSchema)},
					{Name: "write_file", Description: clientproof.WriteDesc, ParametersJsonSchema: json.RawMessage(clientproof.WriteSchema)},
				}}},
			}
			if k.Choice != "" {
				cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: geminiModes[k.Choice]}}
			}
			contents := []*genai.Content{genai.NewContentFromText(clientproof.LastUser(r), genai.RoleUser)}
			for range 10 {
				turn := &genai.Content{Role: genai.RoleModel}
				if stream {
					for resp, err := range client.Models.GenerateContentStream(ctx, k.Model, contents, cfg) {
						if err != nil {
							return err
						}
						if len(resp.Candidates) > 0 && resp.Candidates[0].Content != nil {
							turn.Parts = append(turn.Parts, resp.Candidates[0].Content.Parts...)
						}
					}
				} else {
					resp, err := client.Models.GenerateContent(ctx, k.Model, contents, cfg)
					if err != nil {
						return err
					}
					if len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
						return errors.New("no candidate")
					}
					turn = resp.Candidates[0].Content
				}
				contents = append(contents, turn)
				var results []*genai.Part
				for _, fc := range turnCalls(turn) {
					args, _ := json.Marshal(fc.Args)
					p := genai.NewPartFromFunctionResponse(fc.Name, map[string]any{"output": clientproof.RunTool(r.Dir, fc.Name, string(args))})
					p.FunctionResponse.ID = fc.ID
					results = append(results, p)
				}
				if len(results) == 0 {
					var text strings.Builder
					for _, p := range turn.Parts {
						if !p.Thought {
							text.WriteString(p.Text)
						}
					}
					r.Final(text.String())
					return nil
				}
				contents = append(contents, &genai.Content{Role: genai.RoleUser, Parts: results})
			}
			return errors.New("too many steps")
		}
	}
}

func turnCalls(c *genai.Content) []*genai.FunctionCall {
	var out []*genai.FunctionCall
	for _, p := range c.Parts {
		if p.FunctionCall != nil {
			out = append(out, p.FunctionCall)
		}
	}
	return out
}

func TestGenai(t *testing.T) {
	t.Run("json", func(t *testing.T) { clientproof.Prove(t, clientproof.Gemini, genaiAgent(false)) })
	t.Run("stream", func(t *testing.T) { clientproof.Prove(t, clientproof.Gemini, genaiAgent(true)) })
}
