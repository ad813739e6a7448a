package sdkagents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"
)

// Gemini answers request about the notes in dir with Google's Gemini API
// on google.golang.org/genai: it calls the model, runs the function calls
// it asks for (answered by function responses), and returns its final
// text.
func Gemini(ctx context.Context, client *genai.Client, dir, request string) (string, error) {
	cfg := &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText(SystemPrompt, genai.RoleUser)}
	var decls []*genai.FunctionDeclaration
	for _, t := range tools {
		props := map[string]*genai.Schema{}
		for _, p := range t.Params {
			props[p] = &genai.Schema{Type: genai.TypeString}
		}
		decls = append(decls, &genai.FunctionDeclaration{Name: t.Name, Description: t.Description,
			Parameters: &genai.Schema{Type: genai.TypeObject, Properties: props, Required: t.Params}})
	}
	cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	contents := []*genai.Content{genai.NewContentFromText(request, genai.RoleUser)}
	for range MaxSteps {
		resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, cfg)
		if err != nil {
			return "", err
		}
		if len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
			return "", errors.New("the model answered with no candidate")
		}
		turn := resp.Candidates[0].Content
		contents = append(contents, turn)
		var results []*genai.Part
		var text strings.Builder
		for _, p := range turn.Parts {
			if fc := p.FunctionCall; fc != nil {
				args, err := json.Marshal(fc.Args)
				if err != nil {
					return "", err
				}
				part := genai.NewPartFromFunctionResponse(fc.Name, map[string]any{"output": runTool(dir, fc.Name, string(args))})
				part.FunctionResponse.ID = fc.ID
				results = append(results, part)
			} else {
				text.WriteString(p.Text)
			}
		}
		if len(results) == 0 {
			return text.String(), nil
		}
		contents = append(contents, &genai.Content{Role: genai.RoleUser, Parts: results})
	}
	return "", fmt.Errorf("no answer after %d model calls", MaxSteps)
}
