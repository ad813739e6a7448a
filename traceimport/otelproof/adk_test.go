package otelproof

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/tapeloop/tapeloop/bridge"
)

// adkTrace is adk-go's own telemetry output for a run with one tool call
// (the shared corpus's copy of its functional-test digest, content on
// spans and events), or "" when the corpus is not on this machine.
func adkTrace() string {
	const name = "traces/adk-go__toolcall__span_and_event-otel_semconv_1_44.json"
	if dir := os.Getenv("TAPELOOP_CORPORA"); dir != "" {
		return filepath.Join(dir, name)
	}
	for up := ".."; len(up) < 24; up += "/.." {
		if p := filepath.Join(up, "shared", "corpora", name); fileExists(p) {
			return p
		}
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// geminiAgent is the agent of adk-go's test, rebuilt on the genai SDK:
// its instruction, one tool some_tool answering {"result": "processed
// ARG1"}, through the Gemini API.
func geminiAgent(instruction string) bridge.Agent {
	return func(ctx context.Context, r *bridge.Run) error {
		client, err := genai.NewClient(ctx, &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: r.APIKey,
			HTTPClient: r.HTTPClient, HTTPOptions: genai.HTTPOptions{BaseURL: "http://tapeloop-bridge.invalid/"}})
		if err != nil {
			return err
		}
		config := &genai.GenerateContentConfig{
			SystemInstruction: genai.NewContentFromText(instruction, genai.RoleUser),
			Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
				Name: "some_tool", Description: "A sample tool.",
				ParametersJsonSchema: map[string]any{"type": "object", "properties": map[string]any{"arg1": map[string]any{"type": "string"}}},
			}}}},
		}
		contents := []*genai.Content{genai.NewContentFromText(r.Input[len(r.Input)-1].Content, genai.RoleUser)}
		for range 5 {
			resp, err := client.Models.GenerateContent(ctx, "mock", contents, config)
			if err != nil {
				return err
			}
			calls := resp.FunctionCalls()
			if len(calls) == 0 {
				r.Final(resp.Text())
				return nil
			}
			contents = append(contents, resp.Candidates[0].Content)
			var parts []*genai.Part
			for _, c := range calls {
				arg, _ := c.Args["arg1"].(string)
				p := genai.NewPartFromFunctionResponse(c.Name, map[string]any{"result": "processed " + arg})
				p.FunctionResponse.ID = c.ID
				parts = append(parts, p)
			}
			contents = append(contents, genai.NewContentFromParts(parts, genai.RoleUser))
		}
		return nil
	}
}

// adkInstruction is the instruction adk-go's test agent sent.
const adkInstruction = "you are helpful\n\nYou are an agent. Your internal name is \"some_root_agent\". The description about you is \"A sample root agent.\"."

// TestADKTraceReplaysThroughGemini imports adk-go's own trace of a tool
// call bridged, and replays it through the Gemini API with an agent that
// sends what adk-go's agent sent; another instruction fails closed.
func TestADKTraceReplaysThroughGemini(t *testing.T) {
	trace := adkTrace()
	if trace == "" {
		t.Skip("SKIP: the shared trace corpus is not on this machine (set TAPELOOP_CORPORA to the corpora directory)")
	}
	dir := filepath.Join(t.TempDir(), "scenarios")
	code, out := evalrunWith(t, geminiAgent(adkInstruction), "import", "--agent", "orders", "--out", dir, trace)
	if code != 0 || !strings.Contains(out, "PASS  golden written") {
		t.Fatalf("import: exit %d\n%s", code, out)
	}
	if code, out := evalrunWith(t, geminiAgent("you are helpful"), "replay", dir); code != 1 || !strings.Contains(out, "offered.system") {
		t.Errorf("another instruction: exit %d, want 1 naming offered.system\n%s", code, out)
	}
}
