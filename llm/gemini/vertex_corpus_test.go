package gemini_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/adctest"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/gemini"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// recorded is one exchange of real Vertex AI traffic.
type recorded struct {
	url         string // the URL the client called
	body        []byte
	status      int
	contentType string
	answer      []byte
}

// vertexCorpus reads a file of ../shared/corpora/wire/gemini, skipping
// the test when the corpus is absent.
func vertexCorpus(t *testing.T, name string) []byte {
	t.Helper()
	for _, dir := range []string{filepath.Join("..", "..", "..", "..", "shared"), filepath.Join("..", "..", "..", "shared")} {
		b, err := os.ReadFile(filepath.Join(dir, "corpora", "wire", "gemini", name))
		if err == nil {
			return b
		}
	}
	t.Skipf("the corpus of recorded Gemini traffic (../shared/corpora/wire/gemini/%s) is absent", name)
	return nil
}

// TestVertexCorpusForward forwards the requests of a real Vertex AI
// exchange (genai 1.49 on Vertex, streamed, a tool loop: go-vcr cassette)
// as a bridged agent's, and serves the answers Vertex AI sent: the
// provider calls the very URL the client called (host of the location,
// project, location, v1beta1, alt=sse) with the body byte for byte, and
// reads the recorded answers (a signed call, then text).
func TestVertexCorpusForward(t *testing.T) {
	var c struct {
		Interactions []struct {
			Request struct {
				Body          string `yaml:"body"`
				URL           string `yaml:"url"`
				ContentLength int    `yaml:"content_length"`
			} `yaml:"request"`
			Response struct {
				Body    string              `yaml:"body"`
				Headers map[string][]string `yaml:"headers"`
				Code    int                 `yaml:"code"`
			} `yaml:"response"`
		} `yaml:"interactions"`
	}
	if err := yaml.Unmarshal(vertexCorpus(t, "fantasy__vertex-gemini-2-5-flash__tool_streaming.yaml"), &c); err != nil {
		t.Fatal(err)
	}
	var ex []recorded
	for _, it := range c.Interactions {
		body := it.Request.Body
		if n := it.Request.ContentLength; n >= 0 && n < len(body) {
			body = body[:n] // the cassette's literal block adds a line break
		}
		ex = append(ex, recorded{url: it.Request.URL, body: []byte(body), status: it.Response.Code,
			contentType: strings.Join(it.Response.Headers["Content-Type"], ""), answer: []byte(it.Response.Body)})
	}
	if len(ex) != 2 {
		t.Fatalf("the cassette holds %d exchanges, want 2", len(ex))
	}
	tokens := adctest.NewServer(t, gemini.Scope)
	sa := tokens.ServiceAccount(t, "settings-project")
	var called []string
	var bodies [][]byte
	hc := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		if !strings.HasSuffix(r.URL.Hostname(), ".googleapis.com") {
			return http.DefaultTransport.RoundTrip(r) // the token endpoint
		}
		if r.Header.Get("Authorization") != "Bearer "+adctest.Token {
			return nil, fmt.Errorf("called with Authorization %q", r.Header.Get("Authorization"))
		}
		b, _ := io.ReadAll(r.Body)
		called, bodies = append(called, r.URL.String()), append(bodies, b)
		e := ex[len(called)-1]
		return &http.Response{StatusCode: e.status, Header: http.Header{"Content-Type": {e.contentType}}, Body: io.NopCloser(bytes.NewReader(e.answer)), Request: r}, nil
	})}
	m, err := llm.Open(t.Context(), "vertex/gemini-2.5-flash", &llm.OpenOptions{HTTPClient: hc,
		Getenv: env(map[string]string{gemini.CredentialsEnv: sa, gemini.LocationEnv: "europe-west4"})})
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range ex {
		path, query, _ := strings.Cut(strings.TrimPrefix(e.url, "https://"), "?")
		path = path[strings.Index(path, "/"):]
		call, err := wire.Decode(path, e.body)
		if err != nil {
			t.Fatalf("exchange %d: %v", i+1, err)
		}
		fw := &wire.Forwarded{Call: call, URL: mustURL(t, path+"?"+query), Header: http.Header{"Content-Type": {"application/json"}}, Body: e.body}
		resp, err := m.Generate(wire.WithForwarded(t.Context(), fw), &call.Request)
		if err != nil {
			t.Fatalf("exchange %d: %v", i+1, err)
		}
		if called[i] != e.url || !bytes.Equal(bodies[i], e.body) {
			t.Errorf("exchange %d: called %s with %d bytes; the client called %s with %d", i+1, called[i], len(bodies[i]), e.url, len(e.body))
		}
		switch i {
		case 0:
			if len(resp.Message.ToolCalls) != 1 || resp.Message.ToolCalls[0].Name != "weather" || resp.Message.ToolCalls[0].Signature == "" {
				t.Errorf("exchange 1: %+v, want the signed weather call", resp.Message)
			}
		case 1:
			if resp.Message.Content == "" || resp.FinishReason != llm.FinishStop {
				t.Errorf("exchange 2: %+v, want the text answer", resp)
			}
		}
	}
}

// TestVertexCorpusUnauthenticated: Vertex AI's real answer to a call
// without OAuth credentials (401 UNAUTHENTICATED with google.rpc details,
// an httprr trace of adk-go) reaches the caller as an authentication
// error with Google's message. The recorded call is express mode's
// (/v1beta1/publishers/google/models/M, no project): forwarded, it gets
// the settings' project and location.
func TestVertexCorpusUnauthenticated(t *testing.T) {
	b := vertexCorpus(t, "adk-go__TestModel_TrackingHeaders_vertex_enabled.httprr")
	_, rest, _ := bytes.Cut(b, []byte("\n"))
	line, after, _ := bytes.Cut(rest, []byte("\n"))
	var n, k int
	if _, err := fmt.Sscanf(string(line), "%d %d", &n, &k); err != nil || n+k > len(after) {
		t.Fatalf("bad httprr record header %q", line)
	}
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(after[:n])))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(req.Body)
	answer := after[n : n+k]
	tokens := adctest.NewServer(t, gemini.Scope)
	sa := tokens.ServiceAccount(t, "settings-project")
	var called string
	hc := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		if !strings.HasSuffix(r.URL.Hostname(), ".googleapis.com") {
			return http.DefaultTransport.RoundTrip(r)
		}
		called = r.URL.String()
		return http.ReadResponse(bufio.NewReader(bytes.NewReader(answer)), r)
	})}
	m, err := llm.Open(t.Context(), "vertex/gemini-2.0-flash", &llm.OpenOptions{HTTPClient: hc,
		Getenv: env(map[string]string{gemini.CredentialsEnv: sa, gemini.LocationEnv: "us-central1"})})
	if err != nil {
		t.Fatal(err)
	}
	call, err := wire.Decode(req.URL.Path, body)
	if err != nil {
		t.Fatal(err)
	}
	fw := &wire.Forwarded{Call: call, URL: req.URL, Header: req.Header, Body: body}
	_, err = m.Generate(wire.WithForwarded(t.Context(), fw), &call.Request)
	var pe *llm.ProviderError
	if !errors.As(err, &pe) || pe.Kind != llm.ErrAuth || pe.StatusCode != 401 || !strings.Contains(pe.Message, "Expected OAuth2 access token") || pe.Provider != "vertex" {
		t.Errorf("got %v (%+v), want Vertex AI's 401 as an auth error", err, pe)
	}
	if want := "https://us-central1-aiplatform.googleapis.com/v1beta1/projects/settings-project/locations/us-central1/publishers/google/models/gemini-2.0-flash:generateContent"; called != want {
		t.Errorf("called %s, want %s", called, want)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
