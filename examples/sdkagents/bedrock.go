package sdkagents

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
)

// Bedrock answers request about the notes in dir with Amazon Bedrock's
// Converse API on aws-sdk-go-v2: it calls the model, runs the tools it
// asks for (toolUse blocks, answered by toolResult blocks), and returns its
// final text.
func Bedrock(ctx context.Context, client *bedrockruntime.Client, dir, request string) (string, error) {
	var specs []types.Tool
	for _, t := range tools {
		specs = append(specs, &types.ToolMemberToolSpec{Value: types.ToolSpecification{
			Name: aws.String(t.Name), Description: aws.String(t.Description),
			InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(t.schema())}}})
	}
	in := &bedrockruntime.ConverseInput{
		ModelId:    aws.String("amazon.nova-pro-v1:0"),
		System:     []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: SystemPrompt}},
		ToolConfig: &types.ToolConfiguration{Tools: specs},
		Messages:   []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: request}}}},
	}
	for range MaxSteps {
		out, err := client.Converse(ctx, in)
		if err != nil {
			return "", err
		}
		msg, ok := out.Output.(*types.ConverseOutputMemberMessage)
		if !ok {
			return "", errors.New("the model answered with no message")
		}
		in.Messages = append(in.Messages, msg.Value)
		var results []types.ContentBlock
		var text strings.Builder
		for _, b := range msg.Value.Content {
			switch b := b.(type) {
			case *types.ContentBlockMemberToolUse:
				args, err := b.Value.Input.MarshalSmithyDocument()
				if err != nil {
					return "", err
				}
				results = append(results, &types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{ToolUseId: b.Value.ToolUseId,
					Content: []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: runTool(dir, aws.ToString(b.Value.Name), string(args))}}}})
			case *types.ContentBlockMemberText:
				text.WriteString(b.Value)
			}
		}
		if len(results) == 0 {
			return text.String(), nil
		}
		in.Messages = append(in.Messages, types.Message{Role: types.ConversationRoleUser, Content: results})
	}
	return "", fmt.Errorf("no answer after %d model calls", MaxSteps)
}
