// Package notes is an agent tapeloop did not write: a hand-written loop on
// the official openai-go SDK with two tools over a folder of notes. Nothing
// in it knows about tapeloop; its tests run it on recorded scenarios
// through package bridge, which only swaps its model endpoint.
package notes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// SystemPrompt is what the agent tells the model first.
const SystemPrompt = "You keep the user's notes in files. Read a note before you change it."

// Agent answers a user's request about the notes in Dir.
type Agent struct {
	// Client reaches the model.
	Client openai.Client
	// Model names the model; empty means gpt-4.1-mini.
	Model string
	// Dir is the folder of notes.
	Dir string
	// Stream makes the agent stream each answer; false asks for whole ones.
	Stream bool
	// MaxSteps bounds the model calls of one request; zero means 10.
	MaxSteps int
}

// New returns an agent over dir whose client uses opts (a base URL, an
// HTTP client, a key).
func New(dir string, opts ...option.RequestOption) *Agent {
	return &Agent{Client: openai.NewClient(opts...), Dir: dir}
}

// tools are the two functions the model may call.
var tools = []openai.ChatCompletionToolUnionParam{
	openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
		Name:        "read_note",
		Description: openai.String("Read a note by its name."),
		Parameters: openai.FunctionParameters{
			"type":       "object",
			"properties": map[string]any{"name": map[string]any{"type": "string"}},
			"required":   []string{"name"},
		},
	}),
	openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
		Name:        "write_note",
		Description: openai.String("Replace a note's text, creating the note if needed."),
		Parameters: openai.FunctionParameters{
			"type":       "object",
			"properties": map[string]any{"name": map[string]any{"type": "string"}, "text": map[string]any{"type": "string"}},
			"required":   []string{"name", "text"},
		},
	}),
}

// Run answers request: it calls the model, runs the tools it asks for, and
// returns the model's final answer.
func (a *Agent) Run(ctx context.Context, request string) (string, error) {
	return a.Chat().Say(ctx, request)
}

// Chat is one conversation with the agent: each Say continues the same
// history, so the model sees every earlier request, tool call and answer.
type Chat struct {
	agent  *Agent
	params openai.ChatCompletionNewParams
}

// Chat starts a conversation whose history holds only the system prompt.
func (a *Agent) Chat() *Chat {
	params := openai.ChatCompletionNewParams{
		Model:    a.Model,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(SystemPrompt)},
		Tools:    tools,
	}
	if params.Model == "" {
		params.Model = "gpt-4.1-mini"
	}
	return &Chat{agent: a, params: params}
}

// Say answers the user's next message: it calls the model, runs the tools
// it asks for, and returns the model's final answer, which stays in the
// history.
func (c *Chat) Say(ctx context.Context, text string) (string, error) {
	a := c.agent
	c.params.Messages = append(c.params.Messages, openai.UserMessage(text))
	steps := a.MaxSteps
	if steps == 0 {
		steps = 10
	}
	for range steps {
		msg, err := a.complete(ctx, c.params)
		if err != nil {
			return "", err
		}
		c.params.Messages = append(c.params.Messages, msg.ToParam())
		if len(msg.ToolCalls) == 0 {
			return msg.Content, nil
		}
		for _, call := range msg.ToolCalls {
			c.params.Messages = append(c.params.Messages, openai.ToolMessage(a.call(call.Function.Name, call.Function.Arguments), call.ID))
		}
	}
	return "", fmt.Errorf("no answer after %d model calls", steps)
}

// complete makes one model call, streamed or not.
func (a *Agent) complete(ctx context.Context, params openai.ChatCompletionNewParams) (openai.ChatCompletionMessage, error) {
	if !a.Stream {
		resp, err := a.Client.Chat.Completions.New(ctx, params)
		if err != nil {
			return openai.ChatCompletionMessage{}, err
		}
		if len(resp.Choices) == 0 {
			return openai.ChatCompletionMessage{}, errors.New("the model answered with no choice")
		}
		return resp.Choices[0].Message, nil
	}
	stream := a.Client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		return openai.ChatCompletionMessage{}, err
	}
	if len(acc.Choices) == 0 {
		return openai.ChatCompletionMessage{}, errors.New("the model streamed no choice")
	}
	return acc.Choices[0].Message, nil
}

// call runs one tool and returns what the model reads.
func (a *Agent) call(name, arguments string) string {
	var args struct{ Name, Text string }
	if err := json.Unmarshal([]byte(arguments), &args); err != nil {
		return "error: the arguments are not JSON: " + err.Error()
	}
	if args.Name == "" || strings.ContainsAny(args.Name, `/\`) || strings.HasPrefix(args.Name, ".") {
		return fmt.Sprintf("error: %q is not a note name", args.Name)
	}
	path := filepath.Join(a.Dir, args.Name+".md")
	switch name {
	case "read_note":
		b, err := os.ReadFile(path)
		if err != nil {
			return "error: there is no note " + args.Name
		}
		return string(b)
	case "write_note":
		if err := os.WriteFile(path, []byte(args.Text), 0o644); err != nil {
			return "error: " + err.Error()
		}
		return "saved " + args.Name
	}
	return "error: no tool " + name
}
