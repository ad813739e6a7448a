package wire_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// TestOpenAIResponseFormatSchemaKeptOnce: a json_schema response format's
// schema is the request's response schema; the response_format parameter
// the tape pins keeps the rest (name, strict) without a second copy of it.
func TestOpenAIResponseFormatSchemaKeptOnce(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"Hi."}],"response_format":{"type":"json_schema",` +
		`"json_schema":{"name":"answer","strict":true,"schema":{"type":"object","properties":{"n":{"type":"integer"}}}}}}`
	c, err := wire.Decode("/v1/chat/completions", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(c.Request.ResponseSchema), `{"type":"object","properties":{"n":{"type":"integer"}}}`; got != want {
		t.Errorf("response schema %s, want %s", got, want)
	}
	rf := string(c.Request.Params["response_format"])
	if strings.Contains(rf, "properties") || !strings.Contains(rf, `"name":"answer"`) || !strings.Contains(rf, `"strict":true`) {
		t.Errorf("response_format parameter %s: want its name and strictness without the schema", rf)
	}
}

// TestOpenAIRequestMessageShapes: the shapes of a Chat Completions message
// the API reference allows beside a plain string: content as a list of
// parts (text parts joined by a line break, others left out), and an
// assistant message's reasoning text, kept as its reasoning.
func TestOpenAIRequestMessageShapes(t *testing.T) {
	body := `{"model":"m","messages":[` +
		`{"role":"user","content":[{"type":"text","text":"Look at"},{"type":"image_url","image_url":{"url":"https://example.com/a.png"}},{"type":"text","text":"this picture."}]},` +
		`{"role":"assistant","content":"A cat.","reasoning_content":"It has whiskers."},` +
		`{"role":"user","content":"Sure?"}]}`
	c, err := wire.Decode("/v1/chat/completions", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	ms := c.Request.Messages
	if len(ms) != 3 {
		t.Fatalf("%d messages, want 3: %+v", len(ms), ms)
	}
	if ms[0].Content != "Look at\nthis picture." {
		t.Errorf("parts joined as %q", ms[0].Content)
	}
	if want := []llm.Reasoning{{Text: "It has whiskers."}}; len(ms[1].Reasoning) != 1 || ms[1].Reasoning[0] != want[0] {
		t.Errorf("assistant reasoning %+v, want %+v", ms[1].Reasoning, want)
	}
}

// TestOpenAIToolsNotAList: a tools value that is not a list is refused,
// naming the key, rather than decoded as no tools.
func TestOpenAIToolsNotAList(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"Hi."}],"tools":{"type":"function"}}`
	_, err := wire.Decode("/v1/chat/completions", []byte(body))
	if !errors.Is(err, wire.ErrRequest) || !strings.Contains(err.Error(), "tools") {
		t.Errorf("err = %v, want an invalid request naming tools", err)
	}
}
