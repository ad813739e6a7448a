package gemini_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/gemini"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// server is a local Gemini API server: it decodes each request with wire,
// keeps it, and answers with answer's response or error.
type server struct {
	t      *testing.T
	mu     sync.Mutex
	calls  []*wire.Call
	reqs   []*http.Request
	bodies [][]byte
	answer func(*wire.Call) (*llm.Response, *wire.Error)
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c, err := wire.Decode(r.URL.Path, body)
	if err != nil {
		s.t.Errorf("decoding %s: %v\n%s", r.URL.Path, err, body)
		(&wire.Error{Status: 400, Message: err.Error()}).Write(w, wire.Gemini)
		return
	}
	s.mu.Lock()
	s.calls, s.reqs, s.bodies = append(s.calls, c), append(s.reqs, r), append(s.bodies, body)
	s.mu.Unlock()
	resp, e := s.answer(c)
	if e != nil {
		e.Write(w, wire.Gemini)
		return
	}
	wire.WriteResponse(w, c, resp, &wire.Options{Chunk: 6})
}

func open(t *testing.T, s *server, noStream bool, ro llm.RequestOptions) llm.Model {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	m, err := llm.Open(t.Context(), "gemini/gemini-test", &llm.OpenOptions{
		APIKey: "AIza-local", BaseURL: srv.URL, NoStream: noStream, Request: ro,
		Getenv: func(string) string { return "" },
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestGenerate sends a whole conversation through the provider and reads a
// signed answer back, streamed and not: the server decodes the
// conversation tapeloop sent (signatures byte for byte, results as
// response objects) and the provider returns the answer it served.
func TestGenerate(t *testing.T) {
	temp, topP, seed := 0.3, 0.8, int64(11)
	ro := llm.RequestOptions{Temperature: &temp, TopP: &topP, MaxTokens: 300, Seed: &seed, Stop: []string{"##"}, ToolChoice: "read_file"}
	schema := `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`
	signed := llm.Message{Role: llm.RoleAssistant, Content: "Reading both.",
		Reasoning: []llm.Reasoning{{Text: "Which files first?", Signature: "dGhvdWdodA=="}, {Signature: "dGV4dA=="}},
		ToolCalls: []llm.ToolCall{
			{ID: "r1", Name: "read_file", Arguments: `{"path":"a.txt"}`, Signature: "Y2FsbA=="},
			{ID: "r2", Name: "read_file", Arguments: `{"path":"b.txt"}`}}}
	req := &llm.Request{
		Messages: []llm.Message{
			llm.SystemMessage("You read files."),
			llm.UserMessage("Read a.txt and b.txt."),
			signed,
			llm.ToolMessage("r1", "read_file", "alpha"),
			{Role: llm.RoleTool, ToolCallID: "r2", Name: "read_file", Content: "no such file", IsError: true},
		},
		Tools:          []llm.ToolDefinition{{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(schema)}},
		ResponseSchema: json.RawMessage(`{"type":"object"}`),
	}
	answer := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
		{ID: "r3", Name: "read_file", Arguments: `{"path":"c.txt"}`, Signature: "bmV4dA=="}}},
		FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 50, OutputTokens: 20, CachedInputTokens: 32, ReasoningTokens: 12}}
	for _, noStream := range []bool{false, true} {
		s := &server{t: t, answer: func(*wire.Call) (*llm.Response, *wire.Error) { return answer, nil }}
		got, err := open(t, s, noStream, ro).Generate(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, answer) {
			t.Errorf("no stream %v: answer\n got %+v\nwant %+v", noStream, got, answer)
		}
		c := s.calls[0]
		want := []llm.Message{req.Messages[0], req.Messages[1], signed,
			llm.ToolMessage("r1", "read_file", `{"output":"alpha"}`), llm.ToolMessage("r2", "read_file", `{"error":"no such file"}`)}
		if !reflect.DeepEqual(c.Request.Messages, want) {
			t.Errorf("no stream %v: the server decoded\n%+v\nwant\n%+v", noStream, c.Request.Messages, want)
		}
		if c.Stream == noStream || c.Model != "gemini-test" || !strings.HasPrefix(s.reqs[0].URL.Path, "/v1beta/models/") {
			t.Errorf("stream %v model %q path %s", c.Stream, c.Model, s.reqs[0].URL.Path)
		}
		if k := s.reqs[0].Header.Get("X-Goog-Api-Key"); k != "AIza-local" {
			t.Errorf("key header %q", k)
		}
		// genai sends the schema from a Go map: the same JSON value, keys sorted.
		if len(c.Request.Tools) != 1 || !sameJSON(c.Request.Tools[0].Parameters, schema) || string(c.Request.ResponseSchema) != `{"type":"object"}` {
			t.Errorf("tools %+v, response schema %s", c.Request.Tools, c.Request.ResponseSchema)
		}
		for k, v := range map[string]string{"temperature": "0.3", "topP": "0.8", "maxOutputTokens": "300", "seed": "11", "stopSequences": `["##"]`,
			"toolConfig": `{"functionCallingConfig":{"allowedFunctionNames":["read_file"],"mode":"ANY"}}`, "responseMimeType": `"application/json"`} {
			if got := string(c.Request.Params[k]); got != v {
				t.Errorf("param %s = %s, want %s", k, got, v)
			}
		}
	}
}

// TestErrors: Google's errors reach the caller as provider errors of their
// kind, status and wait (from the RetryInfo detail), streamed and not; a
// stream without a finish reason is malformed.
func TestErrors(t *testing.T) {
	cases := []struct {
		err   wire.Error
		kind  llm.ErrorKind
		code  int
		retry time.Duration
	}{
		{wire.Error{Kind: llm.ErrRateLimited, Message: "Quota exceeded.", RetryAfter: 4 * time.Second}, llm.ErrRateLimited, 429, 4 * time.Second},
		{wire.Error{Kind: llm.ErrOverloaded, Message: "The model is overloaded."}, llm.ErrOverloaded, 503, 0},
		{wire.Error{Kind: llm.ErrAuth, Message: "API key not valid."}, llm.ErrAuth, 401, 0},
		{wire.Error{Kind: llm.ErrContextTooLong, Message: "The input token count (9) exceeds the maximum number of tokens allowed (8)."}, llm.ErrContextTooLong, 400, 0},
		{wire.Error{Kind: llm.ErrBadRequest, Message: "Invalid JSON payload."}, llm.ErrBadRequest, 400, 0},
		{wire.Error{Kind: llm.ErrTimeout, Message: "Deadline expired."}, llm.ErrTimeout, 504, 0},
	}
	for _, tc := range cases {
		for _, noStream := range []bool{false, true} {
			s := &server{t: t, answer: func(*wire.Call) (*llm.Response, *wire.Error) { return nil, &tc.err }}
			_, err := open(t, s, noStream, llm.RequestOptions{}).Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
			var pe *llm.ProviderError
			if !errors.As(err, &pe) || pe.Kind != tc.kind || pe.StatusCode != tc.code || pe.RetryAfter != tc.retry || pe.Message != tc.err.Message || pe.Provider != "gemini" {
				t.Errorf("%s (no stream %v): got %v (%+v), want %s %d retry %v", tc.kind, noStream, err, pe, tc.kind, tc.code, tc.retry)
			}
		}
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", wire.ContentStream)
		io.WriteString(w, "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"half an ans\"}],\"role\":\"model\"},\"index\":0}]}\n\n")
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	m, err := llm.Open(t.Context(), "gemini/g", &llm.OpenOptions{APIKey: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}}); !errors.Is(err, llm.ErrMalformed) {
		t.Errorf("a stream cut short: %v, want malformed", err)
	}
}

func TestMissingKey(t *testing.T) {
	_, err := llm.Open(t.Context(), "gemini/g", &llm.OpenOptions{Getenv: func(string) string { return "" }})
	if !errors.Is(err, llm.ErrMissingKey) || !strings.Contains(err.Error(), "GEMINI_API_KEY") {
		t.Errorf("err = %v, want a missing key naming GEMINI_API_KEY", err)
	}
	m, err := llm.Open(t.Context(), "gemini/g", &llm.OpenOptions{Getenv: func(k string) string {
		return map[string]string{"GOOGLE_API_KEY": "from-google-api-key"}[k]
	}})
	if err != nil || m == nil {
		t.Errorf("GOOGLE_API_KEY alone: %v", err)
	}
}

// TestForward: a bridged agent's request goes to the Gemini API as the
// agent sent it, body byte for byte, with this model's key in place of the
// agent's (header and ?key=), the model of the path replaced when another
// is asked, and a Vertex path sent as the Gemini API's.
func TestForward(t *testing.T) {
	body := []byte(`{"contents": [{"role": "user", "parts": [{"text": "Hi."}]}],
  "generationConfig": {"temperature": 1.5}}`)
	for _, tc := range []struct{ agentPath, model, wantPath, replaced string }{
		{"/v1beta/models/gemini-agent:generateContent", "gemini-agent", "/v1beta/models/gemini-agent:generateContent", ""},
		{"/v1/models/gemini-agent:streamGenerateContent", "gemini-other", "/v1/models/gemini-other:streamGenerateContent", "gemini-agent"},
		{"/v1beta1/projects/p/locations/l/publishers/google/models/gemini-agent:generateContent", "gemini-agent", "/v1beta/models/gemini-agent:generateContent", ""},
	} {
		s := &server{t: t, answer: func(*wire.Call) (*llm.Response, *wire.Error) {
			return &llm.Response{Message: llm.AssistantMessage("Hello."), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 2, OutputTokens: 1}}, nil
		}}
		srv := httptest.NewServer(s)
		m, err := llm.Open(t.Context(), "gemini/"+tc.model, &llm.OpenOptions{APIKey: "AIza-vendor", BaseURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		call, err := wire.Decode(tc.agentPath, body)
		if err != nil {
			t.Fatal(err)
		}
		q := url.Values{"key": {"agent-key"}}
		if call.Stream {
			q.Set("alt", "sse")
		}
		fw := &wire.Forwarded{Call: call, URL: &url.URL{Path: tc.agentPath, RawQuery: q.Encode()},
			Header: http.Header{"X-Goog-Api-Key": {"agent-key"}, "Content-Type": {"application/json"}, "X-Goog-Api-Client": {"genai-go/1"}}, Body: body}
		resp, err := m.Generate(wire.WithForwarded(t.Context(), fw), &call.Request)
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.Message.Content != "Hello." || resp.FinishReason != llm.FinishStop {
			t.Errorf("%s: answer %+v", tc.agentPath, resp)
		}
		r := s.reqs[0]
		if r.URL.Path != tc.wantPath || fw.Replaced != tc.replaced || !bytes.Equal(s.bodies[0], body) {
			t.Errorf("%s: sent to %s (replaced %q), body %s", tc.agentPath, r.URL.Path, fw.Replaced, s.bodies[0])
		}
		if r.Header.Get("X-Goog-Api-Key") != "AIza-vendor" || r.URL.Query().Get("key") != "" || r.Header.Get("X-Goog-Api-Client") != "genai-go/1" {
			t.Errorf("%s: headers %v, query %s", tc.agentPath, r.Header, r.URL.RawQuery)
		}
		if call.Stream != (r.URL.Query().Get("alt") == "sse") {
			t.Errorf("%s: query %s", tc.agentPath, r.URL.RawQuery)
		}
	}
}

func sameJSON(a []byte, b string) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}
