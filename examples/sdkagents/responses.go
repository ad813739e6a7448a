package sdkagents

import (
	"context"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
)

// Responses answers request about the notes in dir with OpenAI's Responses
// API on openai-go, statelessly (store false: each call sends the whole
// input, the output items sent back as they came): it calls the model,
// runs the function calls it asks for, and returns its final text.
func Responses(ctx context.Context, client openai.Client, dir, request string) (string, error) {
	params := responses.ResponseNewParams{
		Model:        "gpt-4.1-mini",
		Instructions: param.NewOpt(SystemPrompt),
		Store:        param.NewOpt(false),
	}
	for _, t := range tools {
		params.Tools = append(params.Tools, responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
			Name: t.Name, Description: param.NewOpt(t.Description), Parameters: t.schema()}})
	}
	input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(request, responses.EasyInputMessageRoleUser)}
	for range MaxSteps {
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
		resp, err := client.Responses.New(ctx, params)
		if err != nil {
			return "", err
		}
		var results responses.ResponseInputParam
		for _, it := range resp.Output {
			input = append(input, param.Override[responses.ResponseInputItemUnionParam](rawJSON(it.RawJSON())))
			if it.Type == "function_call" {
				fc := it.AsFunctionCall()
				out := responses.ResponseInputItemParamOfFunctionCallOutput(runTool(dir, fc.Name, fc.Arguments))
				out.OfFunctionCallOutput.CallID = param.NewOpt(fc.CallID)
				results = append(results, out)
			}
		}
		if len(results) == 0 {
			return resp.OutputText(), nil
		}
		input = append(input, results...)
	}
	return "", fmt.Errorf("no answer after %d model calls", MaxSteps)
}

// rawJSON is an output item's JSON, sent back as it came.
type rawJSON string

// MarshalJSON returns the item as it came.
func (j rawJSON) MarshalJSON() ([]byte, error) { return []byte(j), nil }
