package clients_test

import (
	"context"
	"encoding/json"
	"testing"

	einoclaude "github.com/cloudwego/eino-ext/components/model/claude"
	einogemini "github.com/cloudwego/eino-ext/components/model/gemini"
	einoopenai "github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"google.golang.org/genai"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/bridge/internal/clientproof"
)

// einoModel makes the model component a ReAct agent runs on, its client
// pointed at the bridge run r, naming the model name.
type einoModel func(ctx context.Context, r *bridge.Run, name string) (model.ToolCallingChatModel, error)

// einoGemini is eino-ext's Gemini model component on a genai client.
func einoGemini(ctx context.Context, r *bridge.Run, name string) (model.ToolCallingChatModel, error) {
	client, err := genai.NewClient(ctx, &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: r.APIKey,
		HTTPClient: r.HTTPClient, HTTPOptions: genai.HTTPOptions{BaseURL: r.GeminiBaseURL}})
	if err != nil {
		return nil, err
	}
	return einogemini.NewChatModel(ctx, &einogemini.Config{Client: client, Model: name})
}

// einoOpenAI is eino-ext's OpenAI model component (Chat Completions).
func einoOpenAI(ctx context.Context, r *bridge.Run, name string) (model.ToolCallingChatModel, error) {
	return einoopenai.NewChatModel(ctx, &einoopenai.ChatModelConfig{APIKey: r.APIKey, BaseURL: r.OpenAIBaseURL, HTTPClient: r.HTTPClient, Model: name})
}

// einoClaude is eino-ext's Claude model component (Messages, on
// anthropic-sdk-go v1).
func einoClaude(ctx context.Context, r *bridge.Run, name string) (model.ToolCallingChatModel, error) {
	return einoclaude.NewChatModel(ctx, &einoclaude.Config{APIKey: r.APIKey, BaseURL: &r.AnthropicBaseURL, HTTPClient: r.HTTPClient, Model: name, MaxTokens: 1024})
}

// einoChoices are eino's tool choices by clientproof.ModelKnobs.Choice: forced is
// what each component sends as its format's forced choice (Gemini's
// function calling mode ANY, OpenAI's "required", Claude's "any").
var einoChoices = map[string]schema.ToolChoice{"auto": schema.ToolChoiceAllowed, "forced": schema.ToolChoiceForced}

// einoAgent is a ReAct agent of cloudwego/eino on the model component
// newModel makes: the notes tools inferred from Go functions, the agent's
// graph running the tool loop.
func einoAgent(newModel einoModel) func(k clientproof.ModelKnobs) bridge.Agent {
	return func(k clientproof.ModelKnobs) bridge.Agent {
		return func(ctx context.Context, r *bridge.Run) error {
			cm, err := newModel(ctx, r, k.Model)
			if err != nil {
				return err
			}
			type pathArg struct {
				Path string `json:"path"`
			}
			type writeArg struct {
				Path    string `json:"path"`
				Content string `json:"content"`
			}
			read, err := utils.InferTool("read_file", k.ReadDesc, func(_ context.Context, in pathArg) (string, error) {
				b, _ := json.Marshal(in)
				return clientproof.RunTool(r.Dir, "read_file", string(b)), nil
			})
			if err != nil {
				return err
			}
			write, err := utils.InferTool("write_file", clientproof.WriteDesc, func(_ context.Context, in writeArg) (string, error) {
				b, _ := json.Marshal(in)
				return clientproof.RunTool(r.Dir, "write_file", string(b)), nil
			})
			if err != nil {
				return err
			}
			a, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: cm, MaxStep: 10,
				ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{read, write}}})
			if err != nil {
				return err
			}
			var opts []agent.AgentOption
			if k.Choice != "" {
				opts = append(opts, react.WithChatModelOptions(model.WithToolChoice(einoChoices[k.Choice])))
			}
			msg, err := a.Generate(ctx, []*schema.Message{schema.SystemMessage(k.System), schema.UserMessage(clientproof.LastUser(r))}, opts...)
			if err != nil {
				return err
			}
			r.Final(msg.Content)
			return nil
		}
	}
}

// TestEino proves eino's ReAct agent on each of its model components,
// each recorded through a provider of its format.
func TestEino(t *testing.T) {
	t.Run("gemini", func(t *testing.T) { clientproof.Prove(t, clientproof.Gemini, einoAgent(einoGemini)) })
	t.Run("openai", func(t *testing.T) { clientproof.Prove(t, clientproof.ChatCompletions, einoAgent(einoOpenAI)) })
	// The Claude component is on anthropic-sdk-go v1: API version
	// 2023-06-01, which the agent cannot change.
	v1 := clientproof.Messages
	v1.Version = "2023-06-01"
	t.Run("claude", func(t *testing.T) { clientproof.Prove(t, v1, einoAgent(einoClaude)) })
}
