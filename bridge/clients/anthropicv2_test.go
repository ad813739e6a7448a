package clients_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/bridge/internal/clientproof"
	_ "github.com/tapeloop/tapeloop/llm/anthropic" // registers anthropic/
)

// v2Messages is Messages as anthropic-sdk-go v2 speaks it: API version
// 2026-10-21 in anthropic-version, where v1 sends 2023-06-01.
var v2Messages = func() clientproof.Format {
	p := clientproof.Messages
	p.Version, p.OlderVersion = "2026-10-21", "2023-06-01"
	return p
}()

// anthropicV2Agent is an agent loop on anthropic-sdk-go v2 (API version
// 2026-10-21, messages a user/assistant/system union), as its README
// shows one: the system prompt in System, each answer appended with
// Message.ToParam, tool results answering tool_use blocks by id. With
// stream set it accumulates each answer from the stream with
// Message.Accumulate. With inMessages set the system prompt is instead a
// system message among the messages, after the user's.
func anthropicV2Agent(stream, inMessages bool) func(k clientproof.ModelKnobs) bridge.Agent {
	return func(k clientproof.ModelKnobs) bridge.Agent {
		return func(ctx context.Context, r *bridge.Run) error {
			opts := []option.RequestOption{option.WithBaseURL(r.AnthropicBaseURL), option.WithHTTPClient(r.HTTPClient),
				option.WithAPIKey(r.APIKey), option.WithMaxRetries(0)}
			if k.Version != "" {
				opts = append(opts, option.WithHeader("anthropic-version", k.Version))
			}
			client := anthropic.NewClient(opts...)
			tool := func(name, desc, schema string) anthropic.ToolUnionParam {
				var s anthropic.ToolInputSchemaParam
				if err := json.Unmarshal([]byte(schema), &s); err != nil {
					panic(err)
				}
				return anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{Name: name, Description: anthropic.String(desc), InputSchema: s}}
			}
			params := anthropic.MessageNewParams{
				Model: anthropic.Model(k.Model), MaxTokens: 1024,
				System:   []anthropic.TextBlockParam{{Text: k.System}},
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(clientproof.LastUser(r)))},
				Tools:    []anthropic.ToolUnionParam{tool("read_file", k.ReadDesc, clientproof.ReadSchema), tool("write_file", clientproof.WriteDesc, clientproof.WriteSchema)},
			}
			if inMessages {
				params.System = nil
				params.Messages = append(params.Messages, anthropic.MessageParam{OfSystem: &anthropic.SystemMessageParam{
					Content: []anthropic.TextBlockParam{{Text: k.System}}}})
			}
			switch k.Choice {
			case "auto":
				params.ToolChoice = anthropic.ToolChoiceUnionParam{OfAuto: &anthropic.ToolChoiceAutoParam{}}
			case "forced":
				params.ToolChoice = anthropic.ToolChoiceUnionParam{OfAny: &anthropic.ToolChoiceAnyParam{}}
			}
			for range 10 {
				var msg anthropic.Message
				if stream {
					s := client.Messages.NewStreaming(ctx, params)
					for s.Next() {
						if err := msg.Accumulate(s.Current()); err != nil {
							return err
						}
					}
					if err := s.Err(); err != nil {
						return err
					}
				} else {
					m, err := client.Messages.New(ctx, params)
					if err != nil {
						return err
					}
					msg = *m
				}
				params.Messages = append(params.Messages, msg.ToParam())
				var results []anthropic.ContentBlockParamUnion
				var text string
				for _, b := range msg.Content {
					switch b.Type {
					case "text":
						text += b.Text
					case "tool_use":
						out := clientproof.RunTool(r.Dir, b.Name, string(b.Input))
						results = append(results, anthropic.NewToolResultBlock(b.ID, out, strings.HasPrefix(out, "error:")))
					}
				}
				if len(results) == 0 {
					r.Final(text)
					return nil
				}
				params.Messages = append(params.Messages, anthropic.NewUserMessage(results...))
			}
			return errors.New("too many steps")
		}
	}
}

func TestAnthropicV2(t *testing.T) {
	t.Run("json", func(t *testing.T) { clientproof.Prove(t, v2Messages, anthropicV2Agent(false, false)) })
	t.Run("stream", func(t *testing.T) { clientproof.Prove(t, v2Messages, anthropicV2Agent(true, false)) })
	// The system prompt as a system message in messages (new in API
	// version 2026-10-21): recorded where it stands, and a changed one
	// fails the replay as a changed top-level one does.
	t.Run("system in messages", func(t *testing.T) { clientproof.Prove(t, v2Messages, anthropicV2Agent(false, true)) })
}
