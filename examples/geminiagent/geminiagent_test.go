package geminiagent_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/adctest"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/gemini" // registers gemini/ and vertex/
	"github.com/tapeloop/tapeloop/scenario"
)

// needNode skips when node or the installed npm package is missing, except
// under CI, where the test must run (.ci/run installs them).
func needNode(t *testing.T) {
	t.Helper()
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat("node_modules/@google/genai/package.json"); err != nil {
		missing = "the @google/genai npm package is not installed (run: cd examples/geminiagent && npm ci)"
	}
	if missing == "" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("CI is set and %s", missing)
	}
	t.Skip(missing)
}

// scenarioText names agent.mjs as the scenario's command.
const scenarioText = `format: tapeloop/v1
description: The notes agent on @google/genai reads notes.txt and appends a line.
setup:
  agent:
    command: [node, {{agent}}]
    env:
      NOTES_STREAM: "{{stream}}"
    timeout: 60s
  workspace:
    files:
      notes.txt: "hello\n"
input:
  - {role: user, content: "Append world to notes.txt."}
tape: []
expect:
  termination: final_text
  iterations: 3
  tool_calls: [read_file, write_file]
  files:
    notes.txt: "hello\nworld\n"
`

// script is the scripted model: it reads notes.txt, writes it, and says
// done, the n-th request getting the n-th answer.
func script() llm.Model {
	answers := []*llm.Response{
		{Message: llm.AssistantMessage("", llm.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"notes.txt"}`, Signature: "c2lnbmVkIHJlYWQ="}), FinishReason: llm.FinishToolCalls},
		{Message: llm.AssistantMessage("", llm.ToolCall{ID: "c2", Name: "write_file", Arguments: `{"path":"notes.txt","content":"hello\nworld\n"}`}), FinishReason: llm.FinishToolCalls},
		{Message: llm.AssistantMessage("Done: notes.txt now says hello and world."), FinishReason: llm.FinishStop},
	}
	n := 0
	return llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		r := answers[n%len(answers)]
		n++
		return r, nil
	})
}

// TestRecordReplayFailClosed records agent.mjs (JSON and streamed)
// through the gemini provider against a scripted local server speaking
// the Gemini API (the bridge's own handler over script: read notes.txt,
// write it, say done; the first call signed), replays it with the server
// closed, and fails closed when the program's system prompt or a tool's
// description changes.
func TestRecordReplayFailClosed(t *testing.T) {
	needNode(t)
	agent, err := filepath.Abs("agent.mjs")
	if err != nil {
		t.Fatal(err)
	}
	for _, stream := range []string{"0", "1"} {
		t.Run("stream="+stream, func(t *testing.T) {
			path := writeScenario(t, agent, stream)
			srv := httptest.NewServer(bridge.Handler(script(), nil))
			model, err := llm.Open(t.Context(), "gemini/gemini-2.5-flash", &llm.OpenOptions{BaseURL: srv.URL, APIKey: "AIza-local-test"})
			if err != nil {
				t.Fatal(err)
			}
			s := load(t, path)
			o, tape, err := bridge.Record(t.Context(), s, bridge.Command(s), model, nil)
			srv.Close()
			if err != nil {
				t.Fatal(err)
			}
			if o.Termination != "final_text" {
				t.Fatalf("the recording ended with %s: %s", o.Termination, o.Error)
			}
			if err := bridge.WriteRecording(path, tape); err != nil {
				t.Fatal(err)
			}
			if v := verify(t, path, true); !v.Passed() {
				t.Fatalf("the first replay fails:\n%s", fmt.Sprint(v.Failure()))
			}
			if v := verify(t, path, false); !v.Passed() {
				t.Fatalf("the replay with the server gone fails:\n%s", fmt.Sprint(v.Failure()))
			}
			for _, c := range []struct{ what, env, want string }{
				{"system prompt", "NOTES_SYSTEM: Be brief.", "Be brief."},
				{"tool description", "NOTES_READ_DESC: Read any text file.", "Read any text file."},
			} {
				recorded, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				changed := strings.Replace(string(recorded), "      NOTES_STREAM:", "      "+c.env+"\n      NOTES_STREAM:", 1)
				if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
					t.Fatal(err)
				}
				v := verify(t, path, false)
				all := fmt.Sprint(v.Failure())
				if v.Passed() || !strings.Contains(all, "append.yaml:") || !strings.Contains(all, c.want) {
					t.Errorf("%s changed: passed %v; want a failure naming append.yaml and showing %q:\n%s", c.what, v.Passed(), c.want, all)
				}
				if err := os.WriteFile(path, recorded, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestVertexExpressRecord records agent.mjs with GOOGLE_GENAI_USE_VERTEXAI
// set: @google/genai on Vertex AI, in express mode (the key the bridge
// gives it, no project: it calls .../v1beta1/publishers/google/models/M).
// Recorded through vertex/ with Application Default Credentials, the
// request reaches "Vertex AI" in the settings' project and location with
// the access token and the body the program sent; the tape holds no
// token and replays with the server gone.
func TestVertexExpressRecord(t *testing.T) {
	needNode(t)
	agent, err := filepath.Abs("agent.mjs")
	if err != nil {
		t.Fatal(err)
	}
	for _, stream := range []string{"0", "1"} {
		t.Run("stream="+stream, func(t *testing.T) {
			path := writeScenario(t, agent, stream, "    env:\n", "    env:\n      GOOGLE_GENAI_USE_VERTEXAI: \"true\"\n")
			var mu sync.Mutex
			var paths, auths []string
			var bodies [][]byte
			h := bridge.Handler(script(), nil)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				paths, auths, bodies = append(paths, r.URL.Path), append(auths, r.Header.Get("Authorization")+r.Header.Get("X-Goog-Api-Key")), append(bodies, b)
				mu.Unlock()
				r.Body = io.NopCloser(bytes.NewReader(b))
				h.ServeHTTP(w, r)
			}))
			tokens := adctest.NewServer(t, gemini.Scope)
			sa := tokens.ServiceAccount(t, "settings-project")
			model, err := llm.Open(t.Context(), "vertex/gemini-2.5-flash", &llm.OpenOptions{BaseURL: srv.URL,
				Getenv: func(k string) string {
					return map[string]string{gemini.CredentialsEnv: sa, gemini.LocationEnv: "us-central1"}[k]
				}})
			if err != nil {
				t.Fatal(err)
			}
			s := load(t, path)
			o, tape, err := bridge.Record(t.Context(), s, bridge.Command(s), model, nil)
			srv.Close()
			if err != nil {
				t.Fatal(err)
			}
			if o.Termination != "final_text" {
				t.Fatalf("the recording ended with %s: %s", o.Termination, o.Error)
			}
			method := map[string]string{"0": ":generateContent", "1": ":streamGenerateContent"}[stream]
			want := "/v1beta1/projects/settings-project/locations/us-central1/publishers/google/models/gemini-2.5-flash" + method
			if len(paths) != 3 {
				t.Fatalf("Vertex AI got %d requests, want 3", len(paths))
			}
			for i, p := range paths {
				if p != want || auths[i] != "Bearer "+adctest.Token || !bytes.Contains(bodies[i], []byte(`"systemInstruction"`)) {
					t.Errorf("request %d: %s with credentials %q; want %s with the access token alone", i+1, p, auths[i], want)
				}
			}
			if err := bridge.WriteRecording(path, tape); err != nil {
				t.Fatal(err)
			}
			// The program called Vertex AI's express path: the Gemini
			// API's would pin v1beta.
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(adctest.Token)) || !bytes.Contains(b, []byte(`apiVersion: "v1beta1"`)) {
				t.Errorf("the tape holds the token, or does not pin Vertex AI's v1beta1:\n%s", b)
			}
			if v := verify(t, path, true); !v.Passed() {
				t.Fatalf("the replay fails:\n%s", fmt.Sprint(v.Failure()))
			}
		})
	}
}

func load(t *testing.T, path string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func verify(t *testing.T, path string, update bool) *harness.Verdict {
	t.Helper()
	s := load(t, path)
	v := harness.VerifyScenario(t.Context(), s, &harness.VerifyOptions{Update: update, Commands: bridge.Runner(nil, nil)})
	if v.Err != nil {
		t.Fatal(v.Err)
	}
	return v
}

// writeScenario writes scenarioText for the program agent, streamed or
// not ("1", "0"), with the further replacements (old, new pairs), as
// scenarios/append.yaml in a new folder, and returns its path.
func writeScenario(t *testing.T, agent, stream string, replace ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "scenarios")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "append.yaml")
	text := strings.NewReplacer(append([]string{"{{agent}}", agent, "{{stream}}", stream}, replace...)...).Replace(scenarioText)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
