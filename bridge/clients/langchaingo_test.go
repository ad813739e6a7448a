package clients_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/tmc/langchaingo/llms"
	lcopenai "github.com/tmc/langchaingo/llms/openai"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/bridge/internal/clientproof"
)

// langchainAgent is an agent loop on github.com/tmc/langchaingo's OpenAI
// client and its tool calling: llms.WithTools, ToolCall parts in the AI
// message, ToolCallResponse parts in the tool messages.
func langchainAgent(k clientproof.Knobs) bridge.Agent {
	return func(ctx context.Context, r *bridge.Run) error {
		model, err := lcopenai.New(
			lcopenai.WithToken(r.APIKey),
			lcopenai.WithBaseURL(r.OpenAIBaseURL),
			lcopenai.WithHTTPClient(r.HTTPClient),
			lcopenai.WithModel("gpt-test"),
		)
		if err != nil {
			return err
		}
		schema := func(s string) any {
			var v any
			_ = json.Unmarshal([]byte(s), &v)
			return v
		}
		tools := []llms.Tool{
			{Type: "function", Function: &llms.FunctionDefinition{Name: "read_file", Description: k.ReadDesc, Parameters: schema(clientproof.ReadSchema)}},
			{Type: "function", Function: &llms.FunctionDefinition{Name: "write_file", Description: clientproof.WriteDesc, Parameters: schema(clientproof.WriteSchema)}},
		}
		msgs := []llms.MessageContent{
			llms.TextParts(llms.ChatMessageTypeSystem, k.System),
			llms.TextParts(llms.ChatMessageTypeHuman, clientproof.LastUser(r)),
		}
		for range 10 {
			resp, err := model.GenerateContent(ctx, msgs, llms.WithTools(tools))
			if err != nil {
				return err
			}
			if len(resp.Choices) == 0 {
				return errors.New("no choices")
			}
			ch := resp.Choices[0]
			if len(ch.ToolCalls) == 0 {
				r.Final(ch.Content)
				return nil
			}
			ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
			for _, c := range ch.ToolCalls {
				ai.Parts = append(ai.Parts, c)
			}
			msgs = append(msgs, ai)
			for _, c := range ch.ToolCalls {
				msgs = append(msgs, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{
					ToolCallID: c.ID, Name: c.FunctionCall.Name, Content: clientproof.RunTool(r.Dir, c.FunctionCall.Name, c.FunctionCall.Arguments),
				}}})
			}
		}
		return errors.New("too many steps")
	}
}

func TestLangchaingo(t *testing.T) { clientproof.Client(t, langchainAgent) }
