package bedrock_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/bedrock"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// env is the environment a test model reads: dummy credentials and a
// region, nothing from the process.
func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

var creds = map[string]string{"AWS_ACCESS_KEY_ID": "AKIDLIVE", "AWS_SECRET_ACCESS_KEY": "live-secret", "AWS_REGION": "eu-central-1"}

// vendor is a Bedrock server speaking Converse through package wire: it
// keeps each request and its headers and answers with answer.
type vendor struct {
	calls   []*wire.Call
	paths   []string
	headers []http.Header
	answer  func() (*llm.Response, *wire.Error)
}

func (v *vendor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c, err := wire.Decode(r.URL.Path, body)
	if err != nil {
		(&wire.Error{Status: 400, Message: err.Error()}).Write(w, wire.Bedrock)
		return
	}
	v.calls, v.paths, v.headers = append(v.calls, c), append(v.paths, r.URL.EscapedPath()), append(v.headers, r.Header.Clone())
	resp, e := v.answer()
	if e != nil {
		e.Write(w, wire.Bedrock)
		return
	}
	wire.WriteResponse(w, c, resp, nil)
}

// TestGenerate: a conversation with a call, its failed result and a
// forced tool goes out as Converse says, signed with the live key, and
// the answer (reasoning, text, a call, cache usage) comes back whole.
func TestGenerate(t *testing.T) {
	answer := &llm.Response{
		Message: llm.Message{Role: llm.RoleAssistant, Content: "Booking.", Reasoning: []llm.Reasoning{{Text: "Retry elsewhere.", Signature: "c2ln"}},
			ToolCalls: []llm.ToolCall{{ID: "tu_2", Name: "book", Arguments: `{"to":"Nice"}`}}},
		FinishReason: llm.FinishToolCalls,
		Usage:        llm.Usage{InputTokens: 90, OutputTokens: 12, CachedInputTokens: 60},
	}
	v := &vendor{answer: func() (*llm.Response, *wire.Error) { return answer, nil }}
	srv := httptest.NewServer(v)
	defer srv.Close()
	temp := 0.2
	m, err := llm.Open(t.Context(), "bedrock/amazon.nova-pro-v1:0", &llm.OpenOptions{BaseURL: srv.URL, Getenv: env(creds),
		Request: llm.RequestOptions{Temperature: &temp, MaxTokens: 200, ToolChoice: "book"}})
	if err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{
		Messages: []llm.Message{
			llm.SystemMessage("You book trains."),
			llm.UserMessage("To Nice, please."),
			llm.AssistantMessage("", llm.ToolCall{ID: "tu_1", Name: "book", Arguments: `{"to":"Nice"}`}),
			{Role: llm.RoleTool, ToolCallID: "tu_1", Name: "book", Content: "sold out", IsError: true},
		},
		Tools: []llm.ToolDefinition{{Name: "book", Description: "Books a train.", Parameters: []byte(`{"type":"object","properties":{"to":{"type":"string"}}}`)}},
	}
	got, err := m.Generate(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, answer) {
		t.Errorf("answer:\n got %+v\nwant %+v", got, answer)
	}
	c := v.calls[0]
	if c.Model != "amazon.nova-pro-v1:0" || !reflect.DeepEqual(c.Request.Messages, req.Messages) || len(c.Request.Tools) != 1 {
		t.Errorf("the vendor got model %q, messages %+v, tools %+v", c.Model, c.Request.Messages, c.Request.Tools)
	}
	if p := c.Request.Params; string(p["toolChoice"]) != `{"tool":{"name":"book"}}` || string(p["temperature"]) != "0.2" || string(p["maxTokens"]) != "200" {
		t.Errorf("params %s %s %s", p["toolChoice"], p["temperature"], p["maxTokens"])
	}
	if a := v.headers[0].Get("Authorization"); !strings.HasPrefix(a, "AWS4-HMAC-SHA256 Credential=AKIDLIVE/") || !strings.Contains(a, "/eu-central-1/bedrock/aws4_request") {
		t.Errorf("Authorization %q, want a SigV4 signature with the live key", a)
	}
}

// TestErrors: Bedrock's exceptions become the provider errors of their
// kind; missing credentials fail before any request.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		e    *wire.Error
		kind llm.ErrorKind
	}{
		{&wire.Error{Kind: llm.ErrRateLimited}, llm.ErrRateLimited},
		{&wire.Error{Kind: llm.ErrContextTooLong, Message: "9000 tokens"}, llm.ErrContextTooLong},
		{&wire.Error{Status: 403}, llm.ErrAuth},
		{&wire.Error{Kind: llm.ErrOverloaded}, llm.ErrOverloaded},
	} {
		v := &vendor{answer: func() (*llm.Response, *wire.Error) { return nil, tc.e }}
		srv := httptest.NewServer(v)
		m, err := llm.Open(t.Context(), "bedrock/m", &llm.OpenOptions{BaseURL: srv.URL, Getenv: env(creds)})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
		var pe *llm.ProviderError
		if !errors.As(err, &pe) || pe.Kind != tc.kind || pe.Provider != "bedrock" {
			t.Errorf("%+v: got %v, want a bedrock error of kind %s", tc.e, err, tc.kind)
		}
		srv.Close()
	}
	if _, err := llm.Open(t.Context(), "bedrock/m", &llm.OpenOptions{Getenv: env(nil)}); !errors.Is(err, llm.ErrMissingKey) || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
		t.Errorf("no credentials: %v", err)
	}
}

// TestForward: a bridged agent's Converse request goes to the vendor as
// the agent sent it, its signature replaced by one made with the live
// key, to this model's path.
func TestForward(t *testing.T) {
	v := &vendor{answer: func() (*llm.Response, *wire.Error) { return &llm.Response{Message: llm.AssistantMessage("Hi.")}, nil }}
	srv := httptest.NewServer(v)
	defer srv.Close()
	m, err := bedrock.New("eu.amazon.nova-lite-v1:0", &llm.OpenOptions{BaseURL: srv.URL, Getenv: env(creds)})
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"messages":[{"role":"user","content":[{"text":"hi"}]}],"inferenceConfig":{"temperature":0.9}}`)
	path := "/model/eu.amazon.nova-lite-v1:0/converse"
	call, err := wire.Decode(path, body)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Authorization": {"AWS4-HMAC-SHA256 Credential=AKIDAGENT/x"}, "X-Amz-Date": {"20260101T000000Z"}, "Content-Type": {"application/json"}}
	fw := &wire.Forwarded{Call: call, URL: &url.URL{Path: path}, Header: h, Body: body}
	resp, err := m.Generate(wire.WithForwarded(t.Context(), fw), &call.Request)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "Hi." || len(v.calls) != 1 {
		t.Fatalf("answer %+v after %d calls", resp, len(v.calls))
	}
	if a := v.headers[0].Get("Authorization"); strings.Contains(a, "AKIDAGENT") || !strings.Contains(a, "Credential=AKIDLIVE/") {
		t.Errorf("Authorization %q: want the live key's signature alone", a)
	}
	if p := v.calls[0].Request.Params; string(p["temperature"]) != "0.9" || v.paths[0] != "/model/eu.amazon.nova-lite-v1:0/converse" {
		t.Errorf("the vendor got %s with params %v", v.paths[0], p)
	}
}
