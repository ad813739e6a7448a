package bridge_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/internal/adctest"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/gemini"
	"github.com/tapeloop/tapeloop/llm/wire"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
)

// openVertex opens vertex/MODEL against a local "Vertex AI" at base, with a
// service account's key file whose token endpoint is tokens'.
func openVertex(t *testing.T, model, base string, tokens *adctest.Server) llm.Model {
	t.Helper()
	sa := tokens.ServiceAccount(t, "settings-project")
	m, err := llm.Open(t.Context(), "vertex/"+model, &llm.OpenOptions{BaseURL: base,
		Getenv: func(k string) string { return map[string]string{gemini.CredentialsEnv: sa}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestVertexRecordForwards: an agent on google.golang.org/genai's Vertex
// AI backend records against Vertex AI itself (vertex/MODEL, Application
// Default Credentials): the vendor gets the agent's own requests, body
// byte for byte, at the agent's path (its project, location and
// v1beta1), its headers but for the credentials, and an access token
// from the credentials' token endpoint; the tape holds the answers and no
// token, and replays with the vendor gone, streamed and not.
func TestVertexRecordForwards(t *testing.T) {
	const system, desc = "You keep notes in files.", "Read a file."
	agent := func(stream bool) bridge.Agent {
		return (&genaiAgent{system: system, readDesc: desc, stream: stream, vertex: true, version: "v1beta1"}).run
	}
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "json", true: "stream"}[stream], func(t *testing.T) {
			tokens := adctest.NewServer(t, gemini.Scope)
			var sent, got wireLog
			srv := httptest.NewServer(got.vendor(bridge.Handler(notesScript(), nil)))
			live := openVertex(t, "gemini-test", srv.URL, tokens)
			path := record(t, notesScenario, sent.capture(agent(stream)), live)
			srv.Close()

			if len(sent.got) != 3 || len(got.got) != len(sent.got) {
				t.Fatalf("the agent sent %d requests, the vendor got %d; want 3 and 3", len(sent.got), len(got.got))
			}
			method := map[bool]string{false: ":generateContent", true: ":streamGenerateContent"}[stream]
			for i, s := range sent.got {
				g := got.got[i]
				if want := "/v1beta1/projects/notes-project/locations/us-central1/publishers/google/models/gemini-test" + method; g.path != want || s.path != want {
					t.Errorf("request %d: the agent called %s, the vendor got %s; want %s", i+1, s.path, g.path, want)
				}
				if !bytes.Equal(g.body, s.body) {
					t.Errorf("request %d: the vendor got another body:\n got %s\nsent %s", i+1, g.body, s.body)
				}
				for k, vs := range s.header {
					switch k {
					case "Authorization", "Content-Length", "Accept-Encoding":
						continue
					}
					if !slices.Equal(g.header[k], vs) {
						t.Errorf("request %d: header %s: the vendor got %q, the agent sent %q", i+1, k, g.header[k], vs)
					}
				}
				if a := g.header.Values("Authorization"); !slices.Equal(a, []string{"Bearer " + adctest.Token}) || g.header.Get("X-Goog-Api-Key") != "" {
					t.Errorf("request %d: Authorization %q, key %q; want the access token alone", i+1, a, g.header.Get("X-Goog-Api-Key"))
				}
			}
			if g := tokens.Grants(); len(g) != 1 {
				t.Errorf("token requests %q, want one for the three calls", g)
			}
			file, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(file), adctest.Token) || strings.Contains(string(file), "ya29.") || !strings.Contains(string(file), "Done: notes.txt now says hello and world.") {
				t.Errorf("the recording holds the token, or not the vendor's answer:\n%s", file)
			}
			for _, s := range []bool{stream, !stream} {
				if v := verify(t, path, agent(s), true); !v.Passed() {
					t.Fatalf("stream %v: the replay fails:\n%s", s, fmt.Sprint(v.Failure()))
				}
			}
		})
	}
}

// TestVertexTokenNeverKept: a vendor that echoes the request's
// Authorization header back, in an answer and in an error, and the token
// alone, leaves no access token in the tape or the golden: redaction
// covers "Authorization: Bearer" and Google's token shape (ya29.)
// wherever they are recorded.
func TestVertexTokenNeverKept(t *testing.T) {
	const echoScenario = `format: tapeloop/v1
description: A vendor echoes the credentials it was sent.
setup:
  agent: {go: notes}
  workspace:
    files:
      notes.txt: "hello\n"
input:
  - {role: user, content: "Append world to notes.txt."}
tape: []
`
	for _, fails := range []bool{false, true} {
		t.Run(map[bool]string{false: "answer", true: "error"}[fails], func(t *testing.T) {
			tokens := adctest.NewServer(t, gemini.Scope)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				c, err := wire.Decode(r.URL.Path, body)
				if err != nil {
					t.Errorf("the vendor got %s: %v", r.URL.Path, err)
					return
				}
				auth := r.Header.Get("Authorization")
				echo := "You called with Authorization: " + auth + "; the token alone: " + strings.TrimPrefix(auth, "Bearer ")
				if fails {
					(&wire.Error{Kind: llm.ErrAuth, Status: http.StatusUnauthorized, Message: "Request had invalid authentication credentials. " + echo}).Write(w, wire.Gemini)
					return
				}
				wire.WriteResponse(w, c, &llm.Response{Message: llm.AssistantMessage(echo), FinishReason: llm.FinishStop}, nil)
			}))
			defer srv.Close()
			agent := (&genaiAgent{system: "S.", readDesc: "Read a file.", vertex: true}).run
			path := record(t, echoScenario, agent, openVertex(t, "gemini-test", srv.URL, tokens))
			if !fails {
				if v := verify(t, path, agent, true); !v.Passed() {
					t.Fatalf("the replay fails:\n%s", fmt.Sprint(v.Failure()))
				}
			}
			for _, p := range []string{path, scenario.GoldenPath(path)} {
				b, err := os.ReadFile(p)
				if fails && p != path {
					continue // a recording that failed writes no golden
				}
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(b), adctest.Token) || strings.Contains(string(b), "ya29.") ||
					!strings.Contains(string(b), "Authorization: Bearer "+redact.Redacted+"; the token alone: "+redact.Redacted) {
					t.Errorf("%s holds the token, or not its redaction:\n%s", p, b)
				}
			}
			if g := tokens.Grants(); len(g) != 1 {
				t.Errorf("token requests %q: the vendor was not called with a token", g)
			}
		})
	}
}
