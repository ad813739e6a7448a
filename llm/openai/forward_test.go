package openai_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// TestForwardBothFormats: a bridged agent's Chat Completions or Responses
// request reaches the server as sent (path, body, the agent's headers),
// with this model's key alone, and the server's answer comes back as the
// response it encoded.
func TestForwardBothFormats(t *testing.T) {
	want := &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "greet", Arguments: `{"name":"Ada"}`}), FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 12, OutputTokens: 5, CacheReported: true}}
	cases := []struct{ path, body string }{
		{"/v1/chat/completions", `{"model":"gpt-4.1","messages":[{"role":"user","content":"Greet Ada."}],"temperature":0.5}`},
		{"/v1/responses", `{"model":"gpt-4.1","input":"Greet Ada.","temperature":0.5}`},
	}
	for _, c := range cases {
		var gotPath, gotBody, gotAuth, gotBeta string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			gotPath, gotBody, gotAuth, gotBeta = r.URL.Path, string(b), r.Header.Get("Authorization"), r.Header.Get("OpenAI-Beta")
			call, err := wire.Decode(r.URL.Path, b)
			if err != nil {
				t.Errorf("%s: %v", c.path, err)
				return
			}
			wire.WriteResponse(w, call, want, nil)
		}))
		m, err := llm.Open(t.Context(), "openai/gpt-4.1", &llm.OpenOptions{APIKey: "sk-live", BaseURL: srv.URL + "/v1", Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		call, err := wire.Decode(c.path, []byte(c.body))
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse("http://tapeloop-bridge.invalid" + c.path)
		fw := &wire.Forwarded{Call: call, URL: u, Body: []byte(c.body),
			Header: http.Header{"Authorization": {"Bearer sk-tapeloop-bridge"}, "Openai-Beta": {"responses=v1"}, "Content-Type": {"application/json"}}}
		got, err := m.Generate(wire.WithForwarded(context.Background(), fw), &call.Request)
		srv.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if gotPath != c.path || gotBody != c.body || gotAuth != "Bearer sk-live" || gotBeta != "responses=v1" || fw.Replaced != "" {
			t.Errorf("%s: the server got %s %s, Authorization %q, OpenAI-Beta %q (replaced %q)", c.path, gotPath, gotBody, gotAuth, gotBeta, fw.Replaced)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, want %+v", c.path, got, want)
		}
	}
}
