package bench

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/tapeloop/tapeloop/bench/benchagent"
	"github.com/tapeloop/tapeloop/bridge"
)

// geminiBridgeRow is the reference workload's agent on genai replayed
// through the bridge: BridgeRow in the Gemini API's wire format.
const geminiBridgeRow = "bridge: genai (Gemini API) agent replayed through bridge.Runner"

// geminiAloneRow is the same agent alone against canned answer bytes (see
// benchAlone).
const geminiAloneRow = "agent alone: genai (Gemini API) agent against canned answer bytes"

// geminiAgent is benchagent's workload written on google.golang.org/genai:
// the same prompt, tools and loop, its contents kept as genai parsed them.
func geminiAgent(ctx context.Context, r *bridge.Run) error {
	client, err := genai.NewClient(ctx, &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: r.APIKey,
		HTTPClient: r.HTTPClient, HTTPOptions: genai.HTTPOptions{BaseURL: r.GeminiBaseURL}})
	if err != nil {
		return err
	}
	str := &genai.Schema{Type: genai.TypeString}
	cfg := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText("You append lines to files.", genai.RoleUser),
		Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{
			{Name: "read_file", Description: "Read a file.", Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"path": str}, Required: []string{"path"}}},
			{Name: "append_file", Description: "Append text to a file.", Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"path": str, "content": str}, Required: []string{"path", "content"}}},
		}}},
	}
	contents := []*genai.Content{genai.NewContentFromText(benchagent.Prompt, genai.RoleUser)}
	for range benchagent.Turns + 1 {
		resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, cfg)
		if err != nil {
			return err
		}
		if len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
			return errors.New("no candidate")
		}
		turn := resp.Candidates[0].Content
		contents = append(contents, turn)
		var results []*genai.Part
		var text strings.Builder
		for _, p := range turn.Parts {
			if fc := p.FunctionCall; fc != nil {
				args, _ := json.Marshal(fc.Args)
				part := genai.NewPartFromFunctionResponse(fc.Name, map[string]any{"output": benchagent.Tool(r.Dir, fc.Name, string(args))})
				part.FunctionResponse.ID = fc.ID
				results = append(results, part)
			} else {
				text.WriteString(p.Text)
			}
		}
		if len(results) == 0 {
			r.Final(text.String())
			return nil
		}
		contents = append(contents, &genai.Content{Role: genai.RoleUser, Parts: results})
	}
	return errors.New("too many turns")
}

// BenchmarkBridgeGemini is BenchmarkBridge with the agent on genai: the
// scenario loaded, the agent's Gemini API calls answered in process from
// the tape (decoded and matched), the golden compared, each run. Compare
// its µs/turn with BenchmarkBridge's from the same run.
func BenchmarkBridgeGemini(b *testing.B) { benchBridged(b, "gemini", geminiAgent, 13, geminiBridgeRow) }

// BenchmarkAgentAloneGemini is BenchmarkAgentAlone for the genai agent:
// genai's client and the tools against canned answer bytes, no harness.
// BenchmarkBridgeGemini minus this row is what the bridge adds to that
// agent.
func BenchmarkAgentAloneGemini(b *testing.B) {
	benchAlone(b, "gemini", geminiAgent, 16, geminiAloneRow)
}
