package bench

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/tapeloop/tapeloop/bench/benchagent"
	"github.com/tapeloop/tapeloop/bridge"
)

// bedrockBridgeRow is the reference workload's agent on aws-sdk-go-v2's
// Bedrock Runtime client replayed through the bridge: BridgeRow in
// Bedrock Converse's wire format.
const bedrockBridgeRow = "bridge: aws-sdk-go-v2 (Bedrock Converse) agent replayed through bridge.Runner"

// bedrockAloneRow is the same agent alone against canned answer bytes (see
// benchAlone).
const bedrockAloneRow = "agent alone: aws-sdk-go-v2 (Bedrock Converse) agent against canned answer bytes"

// bedrockAgent is benchagent's workload written on bedrockruntime: the
// same prompt, tools and loop, its messages kept as the SDK parsed them.
func bedrockAgent(ctx context.Context, r *bridge.Run) error {
	client := bedrockruntime.New(bedrockruntime.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(r.BedrockBaseURL), HTTPClient: r.HTTPClient, RetryMaxAttempts: 1,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDBENCH", SecretAccessKey: r.APIKey}, nil
		}),
	})
	schema := func(props ...string) document.Interface {
		p := map[string]any{}
		for _, name := range props {
			p[name] = map[string]any{"type": "string"}
		}
		return document.NewLazyDocument(map[string]any{"type": "object", "properties": p, "required": props})
	}
	in := &bedrockruntime.ConverseInput{
		ModelId: aws.String("amazon.nova-pro-v1:0"),
		System:  []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: "You append lines to files."}},
		ToolConfig: &types.ToolConfiguration{Tools: []types.Tool{
			&types.ToolMemberToolSpec{Value: types.ToolSpecification{Name: aws.String("read_file"), Description: aws.String("Read a file."), InputSchema: &types.ToolInputSchemaMemberJson{Value: schema("path")}}},
			&types.ToolMemberToolSpec{Value: types.ToolSpecification{Name: aws.String("append_file"), Description: aws.String("Append text to a file."), InputSchema: &types.ToolInputSchemaMemberJson{Value: schema("path", "content")}}},
		}},
		Messages: []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: benchagent.Prompt}}}},
	}
	for range benchagent.Turns + 1 {
		out, err := client.Converse(ctx, in)
		if err != nil {
			return err
		}
		msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
		if !ok {
			return errors.New("no message")
		}
		in.Messages = append(in.Messages, msg.Value)
		var results []types.ContentBlock
		var text strings.Builder
		for _, b := range msg.Value.Content {
			switch b := b.(type) {
			case *types.ContentBlockMemberToolUse:
				args, err := b.Value.Input.MarshalSmithyDocument()
				if err != nil {
					return err
				}
				results = append(results, &types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{ToolUseId: b.Value.ToolUseId,
					Content: []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: benchagent.Tool(r.Dir, *b.Value.Name, string(args))}}}})
			case *types.ContentBlockMemberText:
				text.WriteString(b.Value)
			}
		}
		if len(results) == 0 {
			r.Final(text.String())
			return nil
		}
		in.Messages = append(in.Messages, types.Message{Role: types.ConversationRoleUser, Content: results})
	}
	return errors.New("too many turns")
}

// BenchmarkBridgeBedrock is BenchmarkBridge with the agent on
// aws-sdk-go-v2's Converse: the scenario loaded, the agent's calls
// answered in process from the tape (decoded and matched), the golden
// compared, each run. Compare its µs/turn with BenchmarkBridge's from the
// same run.
func BenchmarkBridgeBedrock(b *testing.B) {
	benchBridged(b, "bedrock", bedrockAgent, 15, bedrockBridgeRow)
}

// BenchmarkAgentAloneBedrock is BenchmarkAgentAlone for the Bedrock agent:
// aws-sdk-go-v2's Converse client and the tools against canned answer
// bytes, no harness. BenchmarkBridgeBedrock minus this row is what the
// bridge adds to that agent.
func BenchmarkAgentAloneBedrock(b *testing.B) {
	benchAlone(b, "bedrock", bedrockAgent, 18, bedrockAloneRow)
}
