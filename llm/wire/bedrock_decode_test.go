package wire_test

import (
	"errors"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// TestBedrockDecodeBody decodes a Converse body written from the API
// reference, by hand rather than by the SDK, for the shapes an SDK call
// rarely makes: a user turn mixing text and tool results (texts on either
// side of a result are separate user messages, in order), a cache point
// among the tools (skipped), and a JSON schema in outputConfig (the
// response schema, compacted).
func TestBedrockDecodeBody(t *testing.T) {
	body := `{
  "system": [{"text": "Be brief."}],
  "messages": [
    {"role": "user", "content": [{"text": "Read a.txt."}]},
    {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tu_1", "name": "read_file", "input": {"path": "a.txt"}}}]},
    {"role": "user", "content": [
      {"text": "Here it is:"},
      {"toolResult": {"toolUseId": "tu_1", "content": [{"text": "alpha"}]}},
      {"text": "Now summarise."},
      {"text": "In one line."}
    ]}
  ],
  "toolConfig": {"tools": [
    {"toolSpec": {"name": "read_file", "description": "Reads a file.", "inputSchema": {"json": {"type": "object", "properties": {"path": {"type": "string"}}}}}},
    {"cachePoint": {"type": "default"}}
  ]},
  "outputConfig": {"textFormat": {"type": "json_schema", "structure": {"jsonSchema": {"name": "summary", "schema": "{ \"type\": \"object\" }"}}}}
}`
	c, err := wire.Decode("/model/anthropic.claude-test/converse", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Message{
		llm.SystemMessage("Be brief."),
		llm.UserMessage("Read a.txt."),
		llm.AssistantMessage("", llm.ToolCall{ID: "tu_1", Name: "read_file", Arguments: `{"path":"a.txt"}`}),
		llm.UserMessage("Here it is:"),
		llm.ToolMessage("tu_1", "read_file", "alpha"),
		llm.UserMessage("Now summarise.\nIn one line."),
	}
	if !reflect.DeepEqual(c.Request.Messages, want) {
		t.Errorf("messages\n got %+v\nwant %+v", c.Request.Messages, want)
	}
	if len(c.Request.Tools) != 1 || c.Request.Tools[0].Name != "read_file" || c.Request.Tools[0].Description != "Reads a file." {
		t.Errorf("tools %+v, want read_file alone (the cache point skipped)", c.Request.Tools)
	}
	if string(c.Request.ResponseSchema) != `{"type":"object"}` {
		t.Errorf("response schema %s, want the outputConfig's, compacted", c.Request.ResponseSchema)
	}

	// A tool that is neither a toolSpec nor a cache point is refused,
	// naming its place.
	bad := strings.Replace(body, `{"cachePoint": {"type": "default"}}`, `{"systemTool": {"name": "web_grounding"}}`, 1)
	if _, err := wire.Decode("/model/anthropic.claude-test/converse", []byte(bad)); err == nil || !strings.Contains(err.Error(), "toolConfig.tools[1]") {
		t.Errorf("a system tool: err = %v, want one naming toolConfig.tools[1]", err)
	} else if !errors.Is(err, wire.ErrRequest) {
		t.Errorf("a system tool: err = %v, want wire.ErrRequest", err)
	}

	// An assistant turn the reference does not allow is refused, naming the
	// block: a toolUse without its name, a toolResult (a user turn's block).
	call := `{"toolUse": {"toolUseId": "tu_1", "name": "read_file", "input": {"path": "a.txt"}}}`
	for turn, want := range map[string]string{
		`{"toolUse": {"toolUseId": "tu_1", "input": {"path": "a.txt"}}}`:        "messages[1].content[0].toolUse.name: missing",
		`{"toolResult": {"toolUseId": "tu_1", "content": [{"text": "alpha"}]}}`: "messages[1].content[0]: a toolResult in an assistant turn",
	} {
		bad := strings.Replace(body, call, turn, 1)
		if _, err := wire.Decode("/model/anthropic.claude-test/converse", []byte(bad)); err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, wire.ErrRequest) {
			t.Errorf("assistant turn %s: err = %v, want wire.ErrRequest saying %q", turn, err, want)
		}
	}
}

// TestBedrockStopReasonsOnTheWire: each finish reason goes out under the
// name Converse's reference gives it (a cut answer is max_tokens, which the
// SDK types as StopReasonMaxTokens), and a streamed answer closes every
// block it opens with a contentBlockStop.
func TestBedrockStopReasonsOnTheWire(t *testing.T) {
	for finish, want := range map[llm.FinishReason]string{
		llm.FinishLength: "max_tokens", llm.FinishStop: "end_turn", llm.FinishToolCalls: "tool_use", llm.FinishFiltered: "content_filtered",
	} {
		c, err := wire.Decode("/model/m/converse", []byte(`{"messages":[{"role":"user","content":[{"text":"Hi."}]}]}`))
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		wire.WriteResponse(rec, c, &llm.Response{Message: llm.AssistantMessage("Part"), FinishReason: finish}, nil)
		if !strings.Contains(rec.Body.String(), `"stopReason":"`+want+`"`) {
			t.Errorf("%s: body %s, want stopReason %s", finish, rec.Body, want)
		}
	}
	c, err := wire.Decode("/model/m/converse-stream", []byte(`{"messages":[{"role":"user","content":[{"text":"Hi."}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	resp := &llm.Response{Message: llm.AssistantMessage("Reading.", llm.ToolCall{ID: "tu_1", Name: "read_file", Arguments: `{"path":"a"}`}), FinishReason: llm.FinishToolCalls}
	wire.WriteResponse(rec, c, resp, &wire.Options{Chunk: 4})
	body := rec.Body.String()
	for i := range 2 {
		if !strings.Contains(body, `{"contentBlockIndex":`+strconv.Itoa(i)+`}`) {
			t.Errorf("no contentBlockStop for block %d in the stream", i)
		}
	}
}

// TestBedrockStopReasonUnset: a response whose finish reason is unset is
// sent with the stopReason Converse would give it: tool_use when it calls
// tools, end_turn when it does not; whole and streamed alike.
func TestBedrockStopReasonUnset(t *testing.T) {
	for want, msg := range map[string]llm.Message{
		"end_turn": llm.AssistantMessage("Done."),
		"tool_use": llm.AssistantMessage("", llm.ToolCall{ID: "tu_1", Name: "read_file", Arguments: `{"path":"a.txt"}`}),
	} {
		for _, stream := range []bool{false, true} {
			_, body := wire.EncodeResponse(answerCall(t, wire.Bedrock, stream), &llm.Response{Message: msg}, nil)
			if got := strings.Count(string(body), `"stopReason":"`+want+`"`); got != 1 {
				t.Errorf("stream=%v: %d stopReasons %s, want one\n%q", stream, got, want, body)
			}
		}
	}
}

// TestBedrockOutputSchemaKeptOnce: Converse's structured output carries
// its JSON schema as a string in outputConfig.textFormat.structure
// .jsonSchema.schema; that schema is the request's response schema, and
// the outputConfig parameter the tape pins keeps the rest (the name)
// without a second copy of it.
func TestBedrockOutputSchemaKeptOnce(t *testing.T) {
	schema := `{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}`
	body := `{"messages":[{"role":"user","content":[{"text":"Where?"}]}],"outputConfig":{"textFormat":{"type":"json_schema",` +
		`"structure":{"jsonSchema":{"name":"place","schema":"` + schema + `"}}}}}`
	c, err := wire.Decode("/model/amazon.nova-pro-v1:0/converse", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(c.Request.ResponseSchema), `{"type":"object","properties":{"city":{"type":"string"}}}`; got != want {
		t.Errorf("response schema %s, want %s", got, want)
	}
	oc := string(c.Request.Params["outputConfig"])
	if strings.Contains(oc, "properties") || !strings.Contains(oc, `"name":"place"`) {
		t.Errorf("outputConfig parameter %s: want its name without the schema", oc)
	}
}
