package clients_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/gemini" // registers gemini/
	"github.com/tapeloop/tapeloop/replay"
)

// geminiKnobs are knobs with what a Gemini agent also changes: the model
// it names in the path and its function calling mode (toolConfig).
type geminiKnobs struct {
	knobs
	model string
	mode  genai.FunctionCallingConfigMode
}

var geminiDefaults = geminiKnobs{knobs: defaults, model: "gemini-2.5-flash"}

// genaiAgent is an agent loop written on google.golang.org/genai, as its
// README shows one: contents kept by the agent, each model turn appended
// as genai parsed it (thought signatures and all), function responses
// answering the calls by name and id. With stream set it gathers each
// answer's parts from GenerateContentStream.
func genaiAgent(stream bool) func(k geminiKnobs) bridge.Agent {
	return func(k geminiKnobs) bridge.Agent {
		return func(ctx context.Context, r *bridge.Run) error {
			client, err := genai.NewClient(ctx, &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: r.APIKey,
				HTTPClient: r.HTTPClient, HTTPOptions: genai.HTTPOptions{BaseURL: r.GeminiBaseURL}})
			if err != nil {
				return err
			}
			cfg := &genai.GenerateContentConfig{
				SystemInstruction: genai.NewContentFromText(k.system, genai.RoleUser),
				Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{
					{Name: "read_file", Description: k.readDesc, ParametersJsonSchema: json.RawMessage(readSchema)},
					{Name: "write_file", Description: writeDesc, ParametersJsonSchema: json.RawMessage(writeSchema)},
				}}},
			}
			if k.mode != "" {
				cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: k.mode}}
			}
			contents := []*genai.Content{genai.NewContentFromText(lastUser(r), genai.RoleUser)}
			for range 10 {
				turn := &genai.Content{Role: genai.RoleModel}
				if stream {
					for resp, err := range client.Models.GenerateContentStream(ctx, k.model, contents, cfg) {
						if err != nil {
							return err
						}
						if len(resp.Candidates) > 0 && resp.Candidates[0].Content != nil {
							turn.Parts = append(turn.Parts, resp.Candidates[0].Content.Parts...)
						}
					}
				} else {
					resp, err := client.Models.GenerateContent(ctx, k.model, contents, cfg)
					if err != nil {
						return err
					}
					if len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
						return errors.New("no candidate")
					}
					turn = resp.Candidates[0].Content
				}
				contents = append(contents, turn)
				var results []*genai.Part
				for _, fc := range turnCalls(turn) {
					args, _ := json.Marshal(fc.Args)
					p := genai.NewPartFromFunctionResponse(fc.Name, map[string]any{"output": runTool(r.Dir, fc.Name, string(args))})
					p.FunctionResponse.ID = fc.ID
					results = append(results, p)
				}
				if len(results) == 0 {
					var text strings.Builder
					for _, p := range turn.Parts {
						if !p.Thought {
							text.WriteString(p.Text)
						}
					}
					r.Final(text.String())
					return nil
				}
				contents = append(contents, &genai.Content{Role: genai.RoleUser, Parts: results})
			}
			return errors.New("too many steps")
		}
	}
}

func turnCalls(c *genai.Content) []*genai.FunctionCall {
	var out []*genai.FunctionCall
	for _, p := range c.Parts {
		if p.FunctionCall != nil {
			out = append(out, p.FunctionCall)
		}
	}
	return out
}

func TestGenai(t *testing.T) {
	t.Run("json", func(t *testing.T) { proveGemini(t, genaiAgent(false)) })
	t.Run("stream", func(t *testing.T) { proveGemini(t, genaiAgent(true)) })
}

// proveGemini is proveClient for an agent of the Gemini API, recorded
// through the gemini provider (the agent's own request forwarded to the
// scripted server): replayed with the server gone, failing closed when its
// system prompt, a tool's description, its model or its function calling
// mode changes, and replaying the changed model and mode once rebased.
func proveGemini(t *testing.T, agent func(k geminiKnobs) bridge.Agent) {
	dir := filepath.Join(t.TempDir(), "scenarios")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "notes.yaml")
	if err := os.WriteFile(path, []byte(notesScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	live := newLiveServer(t)
	model, err := llm.Open(t.Context(), "gemini/"+geminiDefaults.model, &llm.OpenOptions{BaseURL: live.URL, APIKey: "AIza-local-test"})
	if err != nil {
		t.Fatal(err)
	}
	o, tape, err := bridge.Record(t.Context(), load(t, path), agent(geminiDefaults), model, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != "final_text" {
		t.Fatalf("the recording ended with %s: %s", o.Termination, o.Error)
	}
	if err := bridge.WriteRecording(path, tape); err != nil {
		t.Fatal(err)
	}
	live.Close()
	if live.requests != 3 {
		t.Fatalf("the live server saw %d requests, want 3", live.requests)
	}
	recorded, _ := os.ReadFile(path)
	for _, want := range []string{"offered:", geminiDefaults.system, geminiDefaults.readDesc, "call_2", geminiDefaults.model} {
		if !strings.Contains(string(recorded), want) {
			t.Errorf("the recorded scenario does not hold %q:\n%s", want, recorded)
		}
	}
	if v := verify(t, path, agent(geminiDefaults), true); !v.Passed() {
		t.Fatalf("the first replay (writing the golden) fails:\n%s", strings.Join(v.Failures, "\n"))
	}
	if v := verify(t, path, agent(geminiDefaults), false); !v.Passed() {
		t.Fatalf("the replay with the server gone fails:\n%s", strings.Join(v.Failures, "\n"))
	}

	changed := geminiDefaults
	changed.system = "You keep notes in files. Be brief."
	failsClosed(t, "system prompt", verify(t, path, agent(changed), false), "notes.yaml:", "Be brief.")
	changed = geminiDefaults
	changed.readDesc = "Read a text file."
	failsClosed(t, "tool description", verify(t, path, agent(changed), false), "notes.yaml:", "read_file", "Read a text file.")
	changed = geminiDefaults
	changed.model = "gemini-2.5-pro"
	failsClosed(t, "model", verify(t, path, agent(changed), false), "notes.yaml:", "model", "gemini-2.5-pro")
	changed = geminiDefaults
	changed.mode = genai.FunctionCallingConfigModeAny
	failsClosed(t, "function calling mode", verify(t, path, agent(changed), false), "notes.yaml:", "toolConfig", "ANY")

	// Rebased, the agent's new model and mode replay, and the old ones fail.
	changed = geminiDefaults
	changed.model, changed.mode = "gemini-2.5-pro", genai.FunctionCallingConfigModeAuto
	s := load(t, path)
	m := replay.NewModel(s.ReplayTape(), &replay.ModelOptions{Rebase: true})
	if _, err := bridge.Runner(agent(changed), nil)(t.Context(), s, &harness.RunOptions{Replay: m}); err != nil {
		t.Fatal(err)
	}
	rb, err := m.Rebased(nil)
	if err != nil || !rb.Changed() {
		t.Fatalf("rebase: %v, changed %v", err, rb != nil && rb.Changed())
	}
	if err := bridge.WriteRecording(path, rb.Tape); err != nil {
		t.Fatal(err)
	}
	if v := verify(t, path, agent(changed), false); !v.Passed() {
		t.Errorf("the rebased replay fails:\n%s", strings.Join(v.Failures, "\n"))
	}
	failsClosed(t, "model, after the rebase", verify(t, path, agent(geminiDefaults), false), "notes.yaml:", "gemini-2.5-flash")
}
