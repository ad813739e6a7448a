package clients_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/bridge/internal/clientproof"
	_ "github.com/tapeloop/tapeloop/llm/openai" // registers openai-compatible/, which records every Chat Completions agent here
)

// goOpenAIAgent is an agent loop written on github.com/sashabaranov/go-openai,
// as a team would write it: its own messages, its own tool dispatch. With
// stream set it reads each answer as a stream and accumulates the tool
// calls' argument fragments itself.
func goOpenAIAgent(stream bool) func(k clientproof.Knobs) bridge.Agent {
	return func(k clientproof.Knobs) bridge.Agent {
		return func(ctx context.Context, r *bridge.Run) error {
			cfg := openai.DefaultConfig(r.APIKey)
			cfg.BaseURL = r.OpenAIBaseURL
			cfg.HTTPClient = r.HTTPClient
			client := openai.NewClientWithConfig(cfg)
			tools := []openai.Tool{
				{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "read_file", Description: k.ReadDesc, Parameters: json.RawMessage(clientproof.ReadSchema)}},
				{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "write_file", Description: clientproof.WriteDesc, Parameters: json.RawMessage(clientproof.WriteSchema)}},
			}
			msgs := []openai.ChatCompletionMessage{
				{Role: openai.ChatMessageRoleSystem, Content: k.System},
				{Role: openai.ChatMessageRoleUser, Content: clientproof.LastUser(r)},
			}
			for range 10 {
				req := openai.ChatCompletionRequest{Model: "gpt-test", Messages: msgs, Tools: tools}
				var m openai.ChatCompletionMessage
				var err error
				if stream {
					m, err = goOpenAIStream(ctx, client, req)
				} else {
					var resp openai.ChatCompletionResponse
					resp, err = client.CreateChatCompletion(ctx, req)
					if err == nil && len(resp.Choices) == 0 {
						err = errors.New("no choices")
					}
					if err == nil {
						m = resp.Choices[0].Message
					}
				}
				if err != nil {
					return err
				}
				msgs = append(msgs, m)
				if len(m.ToolCalls) == 0 {
					r.Final(m.Content)
					return nil
				}
				for _, c := range m.ToolCalls {
					msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: c.ID, Content: clientproof.RunTool(r.Dir, c.Function.Name, c.Function.Arguments)})
				}
			}
			return errors.New("too many steps")
		}
	}
}

// goOpenAIStream reads one streamed answer into a message, joining the
// content deltas and each tool call's argument fragments by index.
func goOpenAIStream(ctx context.Context, client *openai.Client, req openai.ChatCompletionRequest) (openai.ChatCompletionMessage, error) {
	req.Stream = true
	s, err := client.CreateChatCompletionStream(ctx, req)
	if err != nil {
		return openai.ChatCompletionMessage{}, err
	}
	defer s.Close()
	m := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
	for {
		chunk, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return m, nil
		}
		if err != nil {
			return m, err
		}
		if len(chunk.Choices) == 0 {
			continue
		}
		d := chunk.Choices[0].Delta
		m.Content += d.Content
		for _, tc := range d.ToolCalls {
			i := 0
			if tc.Index != nil {
				i = *tc.Index
			}
			for len(m.ToolCalls) <= i {
				m.ToolCalls = append(m.ToolCalls, openai.ToolCall{Type: openai.ToolTypeFunction})
			}
			c := &m.ToolCalls[i]
			if tc.ID != "" {
				c.ID = tc.ID
			}
			c.Function.Name += tc.Function.Name
			c.Function.Arguments += tc.Function.Arguments
		}
	}
}

func TestGoOpenAI(t *testing.T) {
	t.Run("json", func(t *testing.T) { clientproof.Client(t, goOpenAIAgent(false)) })
	t.Run("stream", func(t *testing.T) { clientproof.Client(t, goOpenAIAgent(true)) })
}
