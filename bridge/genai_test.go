package bridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"testing"

	"google.golang.org/genai"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/gemini" // gemini/, the live side
	"github.com/tapeloop/tapeloop/replay"
)

// genaiAgent is the notes agent on google.golang.org/genai, on the Gemini
// API or Vertex AI, streamed or not: the same two tools, its own loop.
type genaiAgent struct {
	system, readDesc string
	stream, vertex   bool
	// model is the model it asks for; empty means gemini-test.
	model string
	// mode, when set, is its function calling mode (toolConfig).
	mode genai.FunctionCallingConfigMode
	// version, when set, is the API version its client calls (genai's
	// HTTPOptions.APIVersion: the path's v1, v1beta, v1beta1).
	version string
	// drop, when set, drops the thought signature of each part it sends
	// back (a broken agent; Gemini 3 refuses such a call).
	drop bool
}

func (a *genaiAgent) run(ctx context.Context, r *bridge.Run) error {
	cfg := &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: r.APIKey, HTTPClient: r.HTTPClient,
		HTTPOptions: genai.HTTPOptions{BaseURL: r.GeminiBaseURL, APIVersion: a.version}}
	if a.vertex {
		cfg.Backend, cfg.APIKey, cfg.Project, cfg.Location = genai.BackendVertexAI, "", "notes-project", "us-central1"
	}
	client, err := genai.NewClient(ctx, cfg)
	if err != nil {
		return err
	}
	str := &genai.Schema{Type: genai.TypeString}
	gc := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText(a.system, genai.RoleUser),
		Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{
			{Name: "read_file", Description: a.readDesc, Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"path": str}, Required: []string{"path"}}},
			{Name: "write_file", Description: "Write a file.", Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"path": str, "content": str}, Required: []string{"path", "content"}}},
		}}},
	}
	if a.mode != "" {
		gc.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: a.mode}}
	}
	model := a.model
	if model == "" {
		model = "gemini-test"
	}
	contents := []*genai.Content{genai.NewContentFromText(r.Input[len(r.Input)-1].Content, genai.RoleUser)}
	for range 10 {
		turn := &genai.Content{Role: genai.RoleModel}
		if a.stream {
			for resp, err := range client.Models.GenerateContentStream(ctx, model, contents, gc) {
				if err != nil {
					return err
				}
				turn.Parts = append(turn.Parts, resp.Candidates[0].Content.Parts...)
			}
		} else {
			resp, err := client.Models.GenerateContent(ctx, model, contents, gc)
			if err != nil {
				return err
			}
			turn = resp.Candidates[0].Content
		}
		if a.drop {
			for _, p := range turn.Parts {
				p.ThoughtSignature = nil
			}
		}
		contents = append(contents, turn)
		results := &genai.Content{Role: genai.RoleUser}
		var text string
		for _, p := range turn.Parts {
			switch {
			case p.FunctionCall != nil:
				args := genaiArgs(p.FunctionCall.Args)
				out := runTool(r.Dir, p.FunctionCall.Name, args)
				results.Parts = append(results.Parts, genai.NewPartFromFunctionResponse(p.FunctionCall.Name, map[string]any{"output": out}))
				results.Parts[len(results.Parts)-1].FunctionResponse.ID = p.FunctionCall.ID
			case !p.Thought:
				text += p.Text
			}
		}
		if len(results.Parts) == 0 {
			r.Final(text)
			return nil
		}
		contents = append(contents, results)
	}
	return errors.New("too many steps")
}

// TestGenai records the genai notes agent (streamed, through the gemini
// provider forwarding to a scripted local server), replays it with the
// server gone, streamed and not, and fails closed when its system prompt,
// a tool's description, its model or its function calling mode changes,
// on the Gemini API and on Vertex AI, and when it calls another API version
// (v1 instead of v1beta, or Vertex's v1beta1) than it was recorded on;
// rebased, the changed model, mode and version replay.
func TestGenai(t *testing.T) {
	const system, desc = "You keep notes in files.", "Read a file."
	for _, vertex := range []bool{false, true} {
		t.Run(map[bool]string{false: "gemini-api", true: "vertex"}[vertex], func(t *testing.T) {
			recorded := map[bool]string{false: "v1beta", true: "v1beta1"}[vertex]
			agent := func(stream bool) *genaiAgent {
				return &genaiAgent{system: system, readDesc: desc, stream: stream, vertex: vertex, version: recorded}
			}
			srv := httptest.NewServer(bridge.Handler(notesScript(), nil))
			live, err := llm.Open(t.Context(), "gemini/gemini-test", &llm.OpenOptions{BaseURL: srv.URL, APIKey: "AIza-local-test"})
			if err != nil {
				t.Fatal(err)
			}
			path := record(t, notesScenario, agent(true).run, live)
			if b, _ := os.ReadFile(path); testing.Verbose() {
				t.Logf("%s", b)
			}
			srv.Close()
			for _, stream := range []bool{true, false} {
				if !t.Run(map[bool]string{false: "json", true: "stream"}[stream], func(t *testing.T) {
					if v := verify(t, path, agent(stream).run, stream); !v.Passed() {
						t.Fatalf("the replay fails:\n%s", fmt.Sprint(v.Failure()))
					}
				}) {
					t.FailNow()
				}
			}
			a := agent(true)
			a.system += " Be brief."
			failsClosed(t, verify(t, path, a.run, false), "notes.yaml:", "Be brief.")
			a = agent(false)
			a.readDesc = "Read a text file."
			failsClosed(t, verify(t, path, a.run, false), "notes.yaml:", "read_file")
			a = agent(true)
			a.model = "gemini-other"
			failsClosed(t, verify(t, path, a.run, false), "notes.yaml:", "gemini-other")
			a = agent(true)
			a.mode = genai.FunctionCallingConfigModeNone
			failsClosed(t, verify(t, path, a.run, false), "notes.yaml:", "toolConfig", "NONE")
			a = agent(false)
			a.version = "v1"
			failsClosed(t, verify(t, path, a.run, false), "notes.yaml:", "offered.params.apiVersion", `"`+recorded+`"`, `"v1"`)

			// Rebased, the agent's new model, calling mode and API version
			// replay.
			changed := func() *genaiAgent {
				a := agent(false)
				a.model, a.mode, a.version = "gemini-other", genai.FunctionCallingConfigModeAuto, "v1"
				return a
			}
			s := load(t, path)
			m := replay.NewModel(s.ReplayTape(), &replay.ModelOptions{Rebase: true})
			if _, err := bridge.Runner(changed().run, nil)(t.Context(), s, &harness.RunOptions{Replay: m}); err != nil {
				t.Fatal(err)
			}
			rb, err := m.Rebased(nil)
			if err != nil || !rb.Changed() {
				t.Fatalf("rebase: %v, changed %v", err, rb != nil && rb.Changed())
			}
			if err := bridge.WriteRecording(path, rb.Tape); err != nil {
				t.Fatal(err)
			}
			if v := verify(t, path, changed().run, false); !v.Passed() {
				t.Errorf("the rebased replay fails:\n%s", fmt.Sprint(v.Failure()))
			}
			failsClosed(t, verify(t, path, agent(true).run, false), "notes.yaml:", "gemini-other")
		})
	}
}

// genaiArgs is a call's args as the JSON text runTool reads.
func genaiArgs(args map[string]any) string {
	b, err := json.Marshal(args)
	if err != nil {
		return "{}"
	}
	return string(b)
}
