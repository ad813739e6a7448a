package faults

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/faults/faultspec"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// responsesUpstream serves resp as a Responses API server answers c.
func responsesUpstream(t *testing.T, c *wire.Call, resp *llm.Response) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wire.WriteResponse(w, c, resp, &wire.Options{Chunk: 5})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func responsesCall(t *testing.T, stream bool) *wire.Call {
	t.Helper()
	body := `{"model":"m","input":"hi"}`
	if stream {
		body = `{"model":"m","input":"hi","stream":true}`
	}
	c, err := wire.Decode("/v1/responses", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestResponsesArgumentsTruncate: every call of a Responses answer, JSON
// or streamed, is cut to half its arguments, and a stream says the same
// half everywhere: its deltas add up to it, and the events repeating the
// arguments (.done, output_item.done, response.completed) hold it.
func TestResponsesArgumentsTruncate(t *testing.T) {
	resp := &llm.Response{Message: llm.AssistantMessage("Both.",
		llm.ToolCall{ID: "call_a", Name: "write_file", Arguments: `{"path":"été.txt","content":"a long enough line"}`},
		llm.ToolCall{ID: "call_b", Name: "read_file", Arguments: `{"path":"b.txt"}`}), FinishReason: llm.FinishToolCalls}
	want := &llm.Response{Message: llm.AssistantMessage("Both.",
		llm.ToolCall{ID: "call_a", Name: "write_file", Arguments: half(resp.Message.ToolCalls[0].Arguments)},
		llm.ToolCall{ID: "call_b", Name: "read_file", Arguments: half(resp.Message.ToolCalls[1].Arguments)}), FinishReason: llm.FinishToolCalls,
		// A Responses usage always states the cache's count: zero here.
		Usage: llm.Usage{CacheReported: true}}
	for _, stream := range []bool{false, true} {
		c := responsesCall(t, stream)
		srv := responsesUpstream(t, c, resp)
		tr := &Transport{Base: srv.Client().Transport, Faults: []Fault{{Call: 1, Arguments: faultspec.ArgumentsTruncate}}}
		r, body := get(t, tr, srv.URL+"/v1/responses")
		got, err := wire.DecodeAnswer(c, r.StatusCode, r.Header, []byte(body))
		if err != nil {
			t.Fatalf("stream %v: %v\n%s", stream, err, body)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("stream %v: got %+v\nwant %+v", stream, got, want)
		}
		if !stream {
			continue
		}
		deltas := map[string]string{}
		for _, ev := range strings.Split(body, "\n\n") {
			payload, ok := dataLine([]byte(ev))
			if !ok {
				continue
			}
			v, err := decode([]byte(payload))
			if err != nil {
				t.Fatal(err)
			}
			if v["type"] == "response.function_call_arguments.delta" {
				deltas[v["item_id"].(string)] += v["delta"].(string)
			}
		}
		if len(deltas) != 2 {
			t.Fatalf("deltas of %d calls, want 2", len(deltas))
		}
		for _, d := range deltas {
			if d != want.Message.ToolCalls[0].Arguments && d != want.Message.ToolCalls[1].Arguments {
				t.Errorf("the deltas add up to %q, not a call's half", d)
			}
		}
	}
}

// TestResponsesStreamError: an error after the first event is the
// Responses API's error event and response.failed, which read back as an
// overloaded provider error.
func TestResponsesStreamError(t *testing.T) {
	c := responsesCall(t, true)
	srv := responsesUpstream(t, c, &llm.Response{Message: llm.AssistantMessage("hello")})
	tr := &Transport{Base: srv.Client().Transport, Faults: []Fault{{Call: 1, Stream: faultspec.StreamError}}}
	r, body := get(t, tr, srv.URL+"/v1/responses")
	if !strings.HasPrefix(body, "event: response.created\n") || !strings.Contains(body, "event: error\n") || !strings.Contains(body, "event: response.failed\n") {
		t.Errorf("body:\n%s", body)
	}
	_, err := wire.DecodeAnswer(c, r.StatusCode, r.Header, []byte(body))
	var pe *llm.ProviderError
	if !errors.As(err, &pe) || pe.Kind != llm.ErrOverloaded || pe.Message != "injected fault: overloaded" {
		t.Errorf("error %v, want overloaded saying the fault", err)
	}
}
