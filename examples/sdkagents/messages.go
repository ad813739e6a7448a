package sdkagents

import (
	"context"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
)

// Messages answers request about the notes in dir with Anthropic's
// Messages API on anthropic-sdk-go: it calls the model, runs the tools it
// asks for (tool_use blocks, answered by tool_result blocks), and returns
// the model's final text.
func Messages(ctx context.Context, client anthropic.Client, dir, request string) (string, error) {
	params := anthropic.MessageNewParams{
		Model:     "claude-sonnet-4-5",
		MaxTokens: 1024,
		System:    []anthropic.TextBlockParam{{Text: SystemPrompt}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(request))},
	}
	for _, t := range tools {
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
			Name: t.Name, Description: anthropic.String(t.Description),
			InputSchema: anthropic.ToolInputSchemaParam{Properties: t.schema()["properties"], Required: t.Params}}})
	}
	for range MaxSteps {
		msg, err := client.Messages.New(ctx, params)
		if err != nil {
			return "", err
		}
		params.Messages = append(params.Messages, msg.ToParam())
		var results []anthropic.ContentBlockParamUnion
		var text strings.Builder
		for _, b := range msg.Content {
			switch b.Type {
			case "text":
				text.WriteString(b.Text)
			case "tool_use":
				out := runTool(dir, b.Name, string(b.Input))
				results = append(results, anthropic.NewToolResultBlock(b.ID, out, strings.HasPrefix(out, "error:")))
			}
		}
		if len(results) == 0 {
			return text.String(), nil
		}
		params.Messages = append(params.Messages, anthropic.NewUserMessage(results...))
	}
	return "", fmt.Errorf("no answer after %d model calls", MaxSteps)
}
