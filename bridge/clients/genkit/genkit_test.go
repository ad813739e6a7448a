package genkit_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/googlegenai"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/bridge/internal/clientproof"
	_ "github.com/tapeloop/tapeloop/llm/gemini" // registers gemini/
)

// genkitChoices are Genkit's tool choices by ModelKnobs.Choice: the
// plugin sends "required" as function calling mode ANY.
var genkitChoices = map[string]ai.ToolChoice{"auto": ai.ToolChoiceAuto, "forced": ai.ToolChoiceRequired}

// genkitAgent is an agent on Firebase Genkit Go: its Google AI plugin
// (googlegenai.GoogleAI, on genai), the notes tools defined with
// genkit.DefineTool, and genkit.Generate running the tool loop. The
// plugin takes no HTTP client or base URL, so the agent dials the run's
// handler on a loopback port (Run.Serve) found where genai looks,
// GOOGLE_GEMINI_BASE_URL. With stream set it asks for the answers
// streamed (ai.WithStreaming).
func genkitAgent(stream bool) func(k clientproof.ModelKnobs) bridge.Agent {
	return func(k clientproof.ModelKnobs) bridge.Agent {
		return func(ctx context.Context, r *bridge.Run) error {
			base, err := r.Serve()
			if err != nil {
				return err
			}
			restore := setenv("GOOGLE_GEMINI_BASE_URL", base)
			defer restore()
			g := genkit.Init(ctx, genkit.WithPlugins(&googlegenai.GoogleAI{APIKey: r.APIKey}))
			type pathArg struct {
				Path string `json:"path"`
			}
			type writeArg struct {
				Path    string `json:"path"`
				Content string `json:"content"`
			}
			read := genkit.DefineTool(g, "read_file", k.ReadDesc, func(_ *ai.ToolContext, in pathArg) (string, error) {
				b, _ := json.Marshal(in)
				return clientproof.RunTool(r.Dir, "read_file", string(b)), nil
			})
			write := genkit.DefineTool(g, "write_file", clientproof.WriteDesc, func(_ *ai.ToolContext, in writeArg) (string, error) {
				b, _ := json.Marshal(in)
				return clientproof.RunTool(r.Dir, "write_file", string(b)), nil
			})
			opts := []ai.GenerateOption{ai.WithModelName("googleai/" + k.Model), ai.WithSystem(k.System),
				ai.WithPrompt(clientproof.LastUser(r)), ai.WithTools(read, write)}
			if k.Choice != "" {
				opts = append(opts, ai.WithToolChoice(genkitChoices[k.Choice]))
			}
			if stream {
				opts = append(opts, ai.WithStreaming(func(context.Context, *ai.ModelResponseChunk) error { return nil }))
			}
			resp, err := genkit.Generate(ctx, g, opts...)
			if err != nil {
				return err
			}
			r.Final(resp.Text())
			return nil
		}
	}
}

// setenv sets the variable key to v and returns what restores it.
func setenv(key, v string) func() {
	old, had := os.LookupEnv(key)
	os.Setenv(key, v)
	return func() {
		if had {
			os.Setenv(key, old)
		} else {
			os.Unsetenv(key)
		}
	}
}

func TestGenkit(t *testing.T) {
	t.Run("json", func(t *testing.T) { clientproof.Prove(t, clientproof.Gemini, genkitAgent(false)) })
	t.Run("stream", func(t *testing.T) { clientproof.Prove(t, clientproof.Gemini, genkitAgent(true)) })
}
