package faults

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/faults/faultspec"
	"github.com/tapeloop/tapeloop/llm/wire"
)

func geminiFaultCall(t *testing.T, stream bool) (*wire.Call, string) {
	t.Helper()
	path := "/v1beta/models/gemini-test:generateContent"
	if stream {
		path = "/v1beta/models/gemini-test:streamGenerateContent"
	}
	return faultCall(t, path, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`), path
}

// faultCall decodes a request body sent to path into the call a fault is
// injected into.
func faultCall(t *testing.T, path, body string) *wire.Call {
	t.Helper()
	c, err := wire.Decode(path, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGeminiArgumentsTruncate: each call of a Gemini answer, JSON or
// streamed, keeps the first half of its args' keys (sorted); the rest of
// the answer (text, signatures, ids, usage) is what the server sent.
func TestGeminiArgumentsTruncate(t *testing.T) {
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "Writing.", ToolCalls: []llm.ToolCall{
		{ID: "w1", Name: "write_file", Arguments: `{"path":"été.txt","content":"a line","mode":"append"}`, Signature: "c2ln"},
		{Name: "read_file", Arguments: `{"path":"b.txt"}`},
		{Name: "clock"}}}, FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 9, OutputTokens: 4, CacheReported: true}}
	want := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "Writing.", ToolCalls: []llm.ToolCall{
		{ID: "w1", Name: "write_file", Arguments: `{"content":"a line"}`, Signature: "c2ln"},
		{Name: "read_file", Arguments: `{}`},
		{Name: "clock"}}}, FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 9, OutputTokens: 4, CacheReported: true}}
	for _, stream := range []bool{false, true} {
		c, path := geminiFaultCall(t, stream)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			wire.WriteResponse(w, c, resp, &wire.Options{Chunk: 4})
		}))
		tr := &Transport{Base: srv.Client().Transport, Faults: []Fault{{Call: 1, Arguments: faultspec.ArgumentsTruncate}}}
		r, body := get(t, tr, srv.URL+path)
		srv.Close()
		got, err := wire.DecodeAnswer(c, r.StatusCode, r.Header, []byte(body))
		if err != nil {
			t.Fatalf("stream %v: %v\n%s", stream, err, body)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("stream %v:\n got %+v\nwant %+v\n%s", stream, got, want, body)
		}
	}
}

// TestGeminiHTTPFault: an injected status is Google's error body, which
// reads back with its kind and wait.
func TestGeminiHTTPFault(t *testing.T) {
	c, path := geminiFaultCall(t, false)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wire.WriteResponse(w, c, &llm.Response{Message: llm.AssistantMessage("hi")}, nil)
	}))
	defer srv.Close()
	tr := &Transport{Base: srv.Client().Transport, Faults: []Fault{{Call: 1, HTTP: 429, RetryAfter: 2e9}}}
	r, body := get(t, tr, srv.URL+path)
	_, err := wire.DecodeAnswer(c, r.StatusCode, r.Header, []byte(body))
	var pe *llm.ProviderError
	if !errors.As(err, &pe) || pe.Kind != llm.ErrRateLimited || pe.StatusCode != 429 || pe.RetryAfter != 2e9 {
		t.Errorf("error %v, want a rate limit of 2s\n%s", err, body)
	}
}
