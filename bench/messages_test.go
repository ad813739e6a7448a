package bench

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/tapeloop/tapeloop/bench/benchagent"
	"github.com/tapeloop/tapeloop/bridge"
)

// messagesBridgeRow is the reference workload's agent on anthropic-sdk-go
// replayed through the bridge: BridgeRow in the Messages API's wire
// format.
const messagesBridgeRow = "bridge: anthropic-sdk-go (Messages API) agent replayed through bridge.Runner"

// messagesAloneRow is the same agent alone against canned answer bytes (see
// benchAlone).
const messagesAloneRow = "agent alone: anthropic-sdk-go (Messages API) agent against canned answer bytes"

// messagesAgent is benchagent's workload written on anthropic-sdk-go's
// Messages API: the same prompt, tools and loop, each answer sent back as
// the SDK turns it into a parameter.
func messagesAgent(ctx context.Context, r *bridge.Run) error {
	client := anthropic.NewClient(option.WithBaseURL(r.AnthropicBaseURL), option.WithHTTPClient(r.HTTPClient),
		option.WithAPIKey(r.APIKey), option.WithMaxRetries(0))
	str := map[string]any{"type": "string"}
	params := anthropic.MessageNewParams{
		Model: "claude-sonnet-4-5", MaxTokens: 1024,
		System: []anthropic.TextBlockParam{{Text: "You append lines to files."}},
		Tools: []anthropic.ToolUnionParam{
			{OfTool: &anthropic.ToolParam{Name: "read_file", Description: anthropic.String("Read a file."),
				InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"path": str}, Required: []string{"path"}}}},
			{OfTool: &anthropic.ToolParam{Name: "append_file", Description: anthropic.String("Append text to a file."),
				InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"path": str, "content": str}, Required: []string{"path", "content"}}}},
		},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(benchagent.Prompt))},
	}
	for range benchagent.Turns + 1 {
		msg, err := client.Messages.New(ctx, params)
		if err != nil {
			return err
		}
		params.Messages = append(params.Messages, msg.ToParam())
		var results []anthropic.ContentBlockParamUnion
		var text strings.Builder
		for _, b := range msg.Content {
			switch b.Type {
			case "text":
				text.WriteString(b.Text)
			case "tool_use":
				out := benchagent.Tool(r.Dir, b.Name, string(b.Input))
				results = append(results, anthropic.NewToolResultBlock(b.ID, out, strings.HasPrefix(out, "error:")))
			}
		}
		if len(results) == 0 {
			r.Final(text.String())
			return nil
		}
		params.Messages = append(params.Messages, anthropic.NewUserMessage(results...))
	}
	return errors.New("too many turns")
}

// BenchmarkBridgeMessages is BenchmarkBridge with the agent on
// anthropic-sdk-go's Messages API: the scenario loaded, the agent's calls
// answered in process from the tape (decoded and matched), the golden
// compared, each run. Compare its µs/turn with BenchmarkBridge's from the
// same run.
func BenchmarkBridgeMessages(b *testing.B) {
	benchBridged(b, "messages", messagesAgent, 12, messagesBridgeRow)
}

// BenchmarkAgentAloneMessages is BenchmarkAgentAlone for the Messages API
// agent: anthropic-sdk-go's client and the tools against canned answer
// bytes, no harness. BenchmarkBridgeMessages minus this row is what the
// bridge adds to that agent.
func BenchmarkAgentAloneMessages(b *testing.B) {
	benchAlone(b, "messages", messagesAgent, 19, messagesAloneRow)
}
