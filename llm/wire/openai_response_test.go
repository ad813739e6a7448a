package wire_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// TestOpenAIFinishReasonWhenTheResponseHasNone: a recorded response without
// a finish reason is sent as the Chat Completions API would send it:
// "tool_calls" when it calls tools, "stop" when it does not; never an empty
// finish_reason, which clients read as a stream cut short.
func TestOpenAIFinishReasonWhenTheResponseHasNone(t *testing.T) {
	cases := map[string]struct {
		resp *llm.Response
		want string
	}{
		"calls": {&llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path":"a.txt"}`})}, "tool_calls"},
		"text":  {&llm.Response{Message: llm.AssistantMessage("Done.")}, "stop"},
	}
	for name, tc := range cases {
		for _, stream := range []bool{false, true} {
			c := answerCall(t, wire.OpenAI, stream)
			rec := httptest.NewRecorder()
			wire.WriteResponse(rec, c, tc.resp, nil)
			var got []string
			if stream {
				for _, line := range strings.Split(rec.Body.String(), "\n") {
					data, ok := strings.CutPrefix(line, "data: ")
					if !ok || data == "[DONE]" {
						continue
					}
					var ch struct {
						Choices []struct {
							FinishReason *string `json:"finish_reason"`
						} `json:"choices"`
					}
					if err := json.Unmarshal([]byte(data), &ch); err != nil {
						t.Fatalf("%s: chunk %s: %v", name, data, err)
					}
					for _, c := range ch.Choices {
						if c.FinishReason != nil {
							got = append(got, *c.FinishReason)
						}
					}
				}
			} else {
				var body struct {
					Choices []struct {
						FinishReason string `json:"finish_reason"`
					} `json:"choices"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
					t.Fatalf("%s: %v\n%s", name, err, rec.Body)
				}
				for _, c := range body.Choices {
					got = append(got, c.FinishReason)
				}
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("%s stream=%v: finish reasons %q, want [%q]\n%s", name, stream, got, tc.want, rec.Body)
			}
			// And the answer reads back with that reason.
			back, err := wire.DecodeAnswer(c, rec.Code, rec.Header(), rec.Body.Bytes())
			if err != nil {
				t.Fatalf("%s stream=%v: %v\n%s", name, stream, err, rec.Body)
			}
			if string(back.FinishReason) != tc.want {
				t.Errorf("%s stream=%v: read back finish reason %q, want %q", name, stream, back.FinishReason, tc.want)
			}
		}
	}
}

// TestOpenAIStreamEmptyToolCallDelta: a chunk whose tool call delta holds
// only its index (no id, name nor arguments, as some OpenAI-compatible
// servers send) reads back without a phantom, nameless tool call.
func TestOpenAIStreamEmptyToolCallDelta(t *testing.T) {
	body := `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.txt\"}"}}]}}]}

data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{}}]}}]}

data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]

`
	got, err := wire.DecodeAnswer(answerCall(t, wire.OpenAI, true), 200, nil, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"a.txt"}`}}
	if len(got.Message.ToolCalls) != 1 || got.Message.ToolCalls[0] != want[0] {
		t.Errorf("tool calls %+v, want %+v", got.Message.ToolCalls, want)
	}
}

// TestOpenAIContentBesideCalls: a Chat Completions message that only calls
// tools has no content (clients read it as the API's null); one with
// neither text nor calls has content "" (a message always says something).
func TestOpenAIContentBesideCalls(t *testing.T) {
	for want, msg := range map[bool]llm.Message{
		false: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path":"a.txt"}`}),
		true:  llm.AssistantMessage(""),
	} {
		_, body := wire.EncodeResponse(&wire.Call{Format: wire.OpenAI}, &llm.Response{Message: msg}, nil)
		if got := bytes.Contains(body, []byte(`"content":""`)); got != want || bytes.Contains(body, []byte(`"content":null`)) {
			t.Errorf("%+v: body %s, want content \"\" %v", msg, body, want)
		}
	}
}

// TestStreamChunkSize: a stream's text goes in pieces of Options.Chunk
// bytes; a zero or negative Chunk (or no Options) means DefaultChunk.
func TestStreamChunkSize(t *testing.T) {
	text := strings.Repeat("abcdefgh", 2*wire.DefaultChunk/8)
	resp := &llm.Response{Message: llm.AssistantMessage(text), FinishReason: llm.FinishStop}
	for _, tc := range []struct {
		opts   *wire.Options
		pieces int
	}{
		{nil, 2}, {&wire.Options{}, 2}, {&wire.Options{Chunk: -1}, 2}, {&wire.Options{Chunk: 16}, 4}, {&wire.Options{Chunk: 8}, 2 * wire.DefaultChunk / 8},
	} {
		_, body := wire.EncodeResponse(&wire.Call{Format: wire.OpenAI, Stream: true}, resp, tc.opts)
		if got := bytes.Count(body, []byte(`"content":"a`)); got != tc.pieces {
			t.Errorf("options %+v: %d pieces of text, want %d", tc.opts, got, tc.pieces)
		}
	}
	// Bytes that are no UTF-8 (continuation bytes alone) go one a piece,
	// each sent as U+FFFD, not a panic.
	resp = &llm.Response{Message: llm.AssistantMessage("\x80\x80\x80"), FinishReason: llm.FinishStop}
	_, body := wire.EncodeResponse(&wire.Call{Format: wire.OpenAI, Stream: true}, resp, &wire.Options{Chunk: 1})
	if got := bytes.Count(body, []byte(`"content":"\ufffd"`)); got != 3 {
		t.Errorf("three continuation bytes: %d pieces, want 3\n%s", got, body)
	}
}

// TestWriteResponseHeaders: an answer's content type is the format's; a
// stream's is not to be cached (Cache-Control: no-cache), a JSON body's
// says nothing of caching.
func TestWriteResponseHeaders(t *testing.T) {
	resp := &llm.Response{Message: llm.AssistantMessage("Hi."), FinishReason: llm.FinishStop}
	for stream, want := range map[bool][2]string{false: {wire.ContentJSON, ""}, true: {wire.ContentStream, "no-cache"}} {
		rec := httptest.NewRecorder()
		wire.WriteResponse(rec, &wire.Call{Format: wire.OpenAI, Stream: stream}, resp, nil)
		if got := [2]string{rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control")}; got != want || rec.Code != 200 {
			t.Errorf("stream %v: status %d, content type and cache control %q, want 200 %q", stream, rec.Code, got, want)
		}
	}
}
