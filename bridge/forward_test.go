package bridge_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	aoption "github.com/anthropics/anthropic-sdk-go/option"
	ooption "github.com/openai/openai-go/v3/option"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/llm"
)

// exchange is one request as it crossed a wire: path, headers, body.
type exchange struct {
	path   string
	header http.Header
	body   []byte
}

// wireLog keeps the requests that crossed one wire, in order.
type wireLog struct {
	mu  sync.Mutex
	got []exchange
}

func (l *wireLog) keep(r *http.Request) []byte {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, exchange{path: r.URL.Path, header: r.Header.Clone(), body: body})
	return body
}

// vendor is a scripted vendor's server: it keeps each request and answers
// it with h.
func (l *wireLog) vendor(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.keep(r)
		h.ServeHTTP(w, r)
	})
}

// capture returns agent with its HTTP client keeping each request it
// sends (as its SDK wrote it) in l.
func (l *wireLog) capture(agent bridge.Agent) bridge.Agent {
	return func(ctx context.Context, r *bridge.Run) error {
		next := r.HTTPClient.Transport
		r.HTTPClient = &http.Client{Transport: roundTrip(func(req *http.Request) (*http.Response, error) {
			l.keep(req)
			return next.RoundTrip(req)
		})}
		return agent(ctx, r)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// liveKey is the key of the live model: the vendor must get it, the tape
// must not hold it.
const liveKey = "sk-live-0123456789abcdefghijklmnopqrstuv"

// TestRecordForwardsTheAgentsRequest: recording sends the vendor the
// agent's own request, as its official SDK wrote it: the body byte for
// byte (model, sampling, limits, tool choice, user id), and every header
// (the SDK's version headers, anthropic-version and anthropic-beta among
// them), the credentials alone replaced by the live model's. The tape
// holds the vendor's answers and no key.
func TestRecordForwardsTheAgentsRequest(t *testing.T) {
	const system, desc = "You keep notes in files.", "Read a file."
	sdks := []struct {
		name, live, base string
		credential       string
		agent            func(stream bool) bridge.Agent
	}{
		{"openai-go", "openai/gpt-test", "/v1", "Authorization", func(stream bool) bridge.Agent {
			return (&gptAgent{system: system, readDesc: desc, stream: stream, opts: []ooption.RequestOption{
				ooption.WithJSONSet("temperature", 0.3), ooption.WithJSONSet("max_completion_tokens", 300),
				ooption.WithJSONSet("tool_choice", "auto"), ooption.WithJSONSet("user", "u-7"),
				ooption.WithHeader("OpenAI-Beta", "assistants=v2"),
			}}).run
		}},
		{"anthropic-sdk-go", "anthropic/claude-test", "", "X-Api-Key", func(stream bool) bridge.Agent {
			return (&claudeAgent{system: system, readDesc: desc, stream: stream, opts: []aoption.RequestOption{
				aoption.WithJSONSet("temperature", 0.3), aoption.WithJSONSet("stop_sequences", []string{"END"}),
				aoption.WithHeader("anthropic-version", "2023-06-01"), aoption.WithHeader("anthropic-beta", "token-efficient-tools-2025-02-19"),
			}}).run
		}},
	}
	for _, sdk := range sdks {
		for _, stream := range []bool{false, true} {
			t.Run(sdk.name+map[bool]string{false: "", true: "/stream"}[stream], func(t *testing.T) {
				var sent, got wireLog
				srv := httptest.NewServer(got.vendor(bridge.Handler(notesScript(), nil)))
				defer srv.Close()
				live, err := llm.Open(t.Context(), sdk.live, &llm.OpenOptions{BaseURL: srv.URL + sdk.base, APIKey: liveKey, Getenv: func(string) string { return "" }})
				if err != nil {
					t.Fatal(err)
				}
				path := record(t, notesScenario, sent.capture(sdk.agent(stream)), live)

				if len(sent.got) != 3 || len(got.got) != len(sent.got) {
					t.Fatalf("the agent sent %d requests, the vendor got %d; want 3 and 3", len(sent.got), len(got.got))
				}
				for i, s := range sent.got {
					g := got.got[i]
					if !bytes.Equal(g.body, s.body) {
						t.Errorf("request %d: the vendor got another body:\n got %s\nsent %s", i+1, g.body, s.body)
					}
					if g.path != s.path {
						t.Errorf("request %d: the vendor got %s, the agent called %s", i+1, g.path, s.path)
					}
					for k, vs := range s.header {
						switch k {
						case sdk.credential, "Content-Length", "Accept-Encoding":
							continue
						}
						if !slices.Equal(g.header[k], vs) {
							t.Errorf("request %d: header %s: the vendor got %q, the agent sent %q", i+1, k, g.header[k], vs)
						}
					}
					want := liveKey
					if sdk.credential == "Authorization" {
						want = "Bearer " + liveKey
					}
					if g.header.Get(sdk.credential) != want || strings.Contains(strings.Join(g.header.Values(sdk.credential), ""), bridge.APIKey) {
						t.Errorf("request %d: %s = %q, want the live key alone", i+1, sdk.credential, g.header.Values(sdk.credential))
					}
				}
				file, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(file), liveKey) || !strings.Contains(string(file), "Done: notes.txt now says hello and world.") {
					t.Errorf("the recording holds the key, or not the vendor's answer:\n%s", file)
				}
				if v := verify(t, path, sdk.agent(stream), true); !v.Passed() {
					t.Fatalf("the replay fails:\n%s", fmt.Sprint(v.Failure()))
				}
			})
		}
	}
}

// TestForwardToAnotherFormatFails: a live model whose vendor does not
// speak the agent's format fails the recording, saying so; nothing is
// sent.
func TestForwardToAnotherFormatFails(t *testing.T) {
	var got wireLog
	srv := httptest.NewServer(got.vendor(bridge.Handler(notesScript(), nil)))
	defer srv.Close()
	live, err := llm.Open(t.Context(), "anthropic/claude-sonnet-4-5", &llm.OpenOptions{BaseURL: srv.URL, APIKey: liveKey, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	s := load(t, writeScenario(t, notesScenario))
	o, _, err := bridge.Record(t.Context(), s, (&gptAgent{system: "S.", readDesc: "Read a file."}).run, live, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.got) != 0 || !strings.Contains(o.Error, "anthropic/claude-sonnet-4-5 serves Messages") || !strings.Contains(o.Error, "POST /v1/chat/completions (openai)") {
		t.Errorf("the vendor got %d requests; the outcome's error: %q", len(got.got), o.Error)
	}
}
