package faults

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/faults/faultspec"
	"github.com/tapeloop/tapeloop/llm/wire"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

func bedrockFaultCall(t *testing.T, stream bool) (*wire.Call, string) {
	t.Helper()
	path := "/model/anthropic.claude-test/converse"
	if stream {
		path = "/model/anthropic.claude-test/converse-stream"
	}
	return faultCall(t, path, `{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`), path
}

// TestBedrockArgumentsTruncate: a Converse answer's calls keep the first
// half of their input's keys (sorted), as its input is an object; a
// ConverseStream's calls keep the first half of their input's text, cut
// at a character boundary, however the fragments fell. The rest of the
// answer (text, reasoning, ids, usage) is what the server sent.
func TestBedrockArgumentsTruncate(t *testing.T) {
	args := `{"path":"été.txt","content":"a line","mode":"append"}`
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "Writing.",
		Reasoning: []llm.Reasoning{{Text: "Write it.", Signature: "c2ln"}},
		ToolCalls: []llm.ToolCall{
			{ID: "w1", Name: "write_file", Arguments: args},
			{ID: "r1", Name: "read_file", Arguments: `{"path":"b.txt"}`},
			{ID: "c1", Name: "clock", Arguments: `{}`}}},
		FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 9, OutputTokens: 4}}
	for _, tc := range []struct {
		stream bool
		want   []string
	}{
		{false, []string{`{"content":"a line"}`, `{}`, `{}`}},
		// 55 bytes (é is two) keep 27, 16 keep 8, 2 keep 1.
		{true, []string{`{"path":"été.txt","conten`, `{"path":`, `{`}},
	} {
		c, path := bedrockFaultCall(t, tc.stream)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			wire.WriteResponse(w, c, resp, &wire.Options{Chunk: 4})
		}))
		tr := &Transport{Base: srv.Client().Transport, Faults: []Fault{{Call: 1, Arguments: faultspec.ArgumentsTruncate}}}
		r, body := get(t, tr, srv.URL+path)
		srv.Close()
		got, err := wire.DecodeAnswer(c, r.StatusCode, r.Header, []byte(body))
		if err != nil {
			t.Fatalf("stream %v: %v\n%q", tc.stream, err, body)
		}
		want := cloneResp(resp)
		for i := range want.Message.ToolCalls {
			want.Message.ToolCalls[i].Arguments = tc.want[i]
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("stream %v:\n got %+v\nwant %+v", tc.stream, got, want)
		}
	}
}

// TestBedrockStreamTruncatePassesOtherEvents: the events of a stream that
// hold no input fragment pass byte for byte, in order.
func TestBedrockStreamTruncatePassesOtherEvents(t *testing.T) {
	resp := &llm.Response{Message: llm.AssistantMessage("Reading.", llm.ToolCall{ID: "r1", Name: "read_file", Arguments: `{"path":"b.txt"}`}), FinishReason: llm.FinishToolCalls}
	c, _ := bedrockFaultCall(t, true)
	rec := httptest.NewRecorder()
	wire.WriteResponse(rec, c, resp, &wire.Options{Chunk: 3})
	in := rec.Body.Bytes()
	out, err := truncateBedrockStream(in)
	if err != nil {
		t.Fatal(err)
	}
	others := func(data []byte) (kept [][]byte, deltas int) {
		dec := eventstream.NewDecoder()
		r := bytes.NewReader(data)
		for r.Len() > 0 {
			start := len(data) - r.Len()
			msg, err := dec.Decode(r, nil)
			if err != nil {
				t.Fatal(err)
			}
			raw := data[start : len(data)-r.Len()]
			if bytes.Contains(msg.Payload, []byte(`"toolUse":{"input"`)) {
				deltas++
				continue
			}
			kept = append(kept, raw)
		}
		return kept, deltas
	}
	wantOthers, wantDeltas := others(in)
	gotOthers, gotDeltas := others(out)
	if !reflect.DeepEqual(gotOthers, wantOthers) || gotDeltas != wantDeltas {
		t.Errorf("events without input changed: got %d others and %d deltas, want %d and %d", len(gotOthers), gotDeltas, len(wantOthers), wantDeltas)
	}
}

func cloneResp(r *llm.Response) *llm.Response {
	c := *r
	c.Message = r.Message.Clone()
	return &c
}
