package bench

import (
	"context"
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/tapeloop/tapeloop/bench/benchagent"
	"github.com/tapeloop/tapeloop/bridge"
)

// responsesBridgeRow is the reference workload's agent on openai-go's
// Responses API replayed through the bridge: BridgeRow in the Responses
// API's wire format.
const responsesBridgeRow = "bridge: openai-go Responses API agent replayed through bridge.Runner"

// responsesAloneRow is the same agent alone against canned answer bytes (see
// benchAlone).
const responsesAloneRow = "agent alone: openai-go Responses API agent against canned answer bytes"

// responsesAgent is benchagent's workload written on openai-go's Responses
// API: the same prompt, tools and loop, stateless (store false, the whole
// input sent each call, the output items sent back as they came).
func responsesAgent(ctx context.Context, r *bridge.Run) error {
	client := openai.NewClient(option.WithBaseURL(r.OpenAIBaseURL), option.WithHTTPClient(r.HTTPClient),
		option.WithAPIKey(r.APIKey), option.WithMaxRetries(0))
	str := map[string]any{"type": "string"}
	params := responses.ResponseNewParams{
		Model:        "gpt-4.1-mini",
		Instructions: param.NewOpt("You append lines to files."),
		Store:        param.NewOpt(false),
		Tools: []responses.ToolUnionParam{
			{OfFunction: &responses.FunctionToolParam{Name: "read_file", Description: param.NewOpt("Read a file."),
				Parameters: map[string]any{"type": "object", "properties": map[string]any{"path": str}, "required": []string{"path"}}}},
			{OfFunction: &responses.FunctionToolParam{Name: "append_file", Description: param.NewOpt("Append text to a file."),
				Parameters: map[string]any{"type": "object", "properties": map[string]any{"path": str, "content": str}, "required": []string{"path", "content"}}}},
		},
	}
	input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(benchagent.Prompt, responses.EasyInputMessageRoleUser)}
	for range benchagent.Turns + 1 {
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
		resp, err := client.Responses.New(ctx, params)
		if err != nil {
			return err
		}
		var results responses.ResponseInputParam
		for _, it := range resp.Output {
			input = append(input, param.Override[responses.ResponseInputItemUnionParam](rawItem(it.RawJSON())))
			if it.Type == "function_call" {
				fc := it.AsFunctionCall()
				out := responses.ResponseInputItemParamOfFunctionCallOutput(benchagent.Tool(r.Dir, fc.Name, fc.Arguments))
				out.OfFunctionCallOutput.CallID = param.NewOpt(fc.CallID)
				results = append(results, out)
			}
		}
		if len(results) == 0 {
			r.Final(resp.OutputText())
			return nil
		}
		input = append(input, results...)
	}
	return errors.New("too many turns")
}

// rawItem is an output item's JSON, sent back as it came.
type rawItem string

func (j rawItem) MarshalJSON() ([]byte, error) { return []byte(j), nil }

// BenchmarkBridgeResponses is BenchmarkBridge with the agent on openai-go's
// Responses API: the scenario loaded, the agent's calls answered in
// process from the tape (decoded and matched), the golden compared, each
// run. Compare its µs/turn with BenchmarkBridge's from the same run.
func BenchmarkBridgeResponses(b *testing.B) {
	benchBridged(b, "responses", responsesAgent, 14, responsesBridgeRow)
}

// BenchmarkAgentAloneResponses is BenchmarkAgentAlone for the Responses API
// agent: openai-go's Responses client and the tools against canned answer
// bytes, no harness. BenchmarkBridgeResponses minus this row is what the
// bridge adds to that agent.
func BenchmarkAgentAloneResponses(b *testing.B) {
	benchAlone(b, "responses", responsesAgent, 17, responsesAloneRow)
}
