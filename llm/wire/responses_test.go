package wire_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// responsesClient is openai-go's client, its requests served by h in
// process.
func responsesClient(h http.Handler) openai.Client {
	return openai.NewClient(option.WithAPIKey("sk-test"), option.WithBaseURL("http://model.test/v1"),
		option.WithHTTPClient(handlerClient(h)), option.WithMaxRetries(0))
}

// reasoningItem is a reasoning item as OpenAI sends it with
// include: ["reasoning.encrypted_content"], keys sorted as wire keeps it.
const reasoningItem = `{"encrypted_content":"gAAAAB-opaque-bytes","id":"rs_0123","summary":[{"text":"The user wants a file read.","type":"summary_text"}],"type":"reasoning"}`

// TestResponsesRequestDecodes sends, with openai-go's responses package, a
// request using every part of the Responses API the format reads, and
// checks what it decodes to: the instructions as the first system message,
// the items as messages (a developer message, the assistant's reasoning,
// text and calls as one message, each output named after its call), the
// flat function tools, the schema, and the pinned parameters (not store,
// metadata or user).
func TestResponsesRequestDecodes(t *testing.T) {
	s := &server{t: t, answer: func(*wire.Call) (*llm.Response, *wire.Error) {
		return &llm.Response{Message: llm.AssistantMessage("ok")}, nil
	}}
	client := responsesClient(s)
	var reasoning responses.ResponseInputItemUnionParam
	if err := json.Unmarshal([]byte(reasoningItem), &reasoning); err != nil {
		t.Fatal(err)
	}
	params := responses.ResponseNewParams{
		Model:        "gpt-test",
		Instructions: param.NewOpt("You are careful."),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
			responses.ResponseInputItemParamOfMessage("Answer in French.", responses.EasyInputMessageRoleDeveloper),
			responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{
				{OfInputText: &responses.ResponseInputTextParam{Text: "Read a.txt"}},
				{OfInputText: &responses.ResponseInputTextParam{Text: "and b.txt."}},
			}, responses.EasyInputMessageRoleUser),
			reasoning,
			responses.ResponseInputItemParamOfOutputMessage([]responses.ResponseOutputMessageContentUnionParam{
				{OfOutputText: &responses.ResponseOutputTextParam{Text: "Reading both."}},
			}, "msg_1", responses.ResponseOutputMessageStatusCompleted),
			responses.ResponseInputItemParamOfFunctionCall(`{"path": "a.txt"}`, "call_1", "read_file"),
			responses.ResponseInputItemParamOfFunctionCall(`{"path":"b.txt"}`, "call_2", "read_file"),
			functionOutput("call_1", "alpha"),
			functionOutput("call_2", "no such file"),
			responses.ResponseInputItemParamOfMessage("Thanks.", responses.EasyInputMessageRoleUser),
		}},
		Tools: []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{
			Name: "read_file", Description: param.NewOpt("Read a file."), Strict: param.NewOpt(true),
			Parameters: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []string{"path"}},
		}}},
		ToolChoice:        responses.ResponseNewParamsToolChoiceUnion{OfFunctionTool: &responses.ToolChoiceFunctionParam{Name: "read_file"}},
		ParallelToolCalls: param.NewOpt(false),
		Text: responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigParamOfJSONSchema("answer",
			map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}})},
		Reasoning:       shared.ReasoningParam{Effort: shared.ReasoningEffortHigh},
		MaxOutputTokens: param.NewOpt[int64](64),
		Temperature:     param.NewOpt(1.5),
		TopP:            param.NewOpt(0.9),
		Store:           param.NewOpt(false),
		User:            param.NewOpt("user-42"),
		Metadata:        shared.Metadata{"run": "7"},
	}
	if _, err := client.Responses.New(t.Context(), params); err != nil {
		t.Fatal(err)
	}
	c := s.calls[0]
	if c.Format != wire.Responses || c.Model != "gpt-test" || c.Stream {
		t.Errorf("format %v model %q stream %v", c.Format, c.Model, c.Stream)
	}
	want := []llm.Message{
		llm.SystemMessage("You are careful."),
		llm.SystemMessage("Answer in French."),
		llm.UserMessage("Read a.txt\nand b.txt."),
		{Role: llm.RoleAssistant, Content: "Reading both.",
			Reasoning: []llm.Reasoning{{Text: "The user wants a file read.", Signature: reasoningItem}},
			ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path": "a.txt"}`}, {ID: "call_2", Name: "read_file", Arguments: `{"path":"b.txt"}`}}},
		llm.ToolMessage("call_1", "read_file", "alpha"),
		llm.ToolMessage("call_2", "read_file", "no such file"),
		llm.UserMessage("Thanks."),
	}
	if !reflect.DeepEqual(c.Request.Messages, want) {
		t.Errorf("messages\n got %+v\nwant %+v", c.Request.Messages, want)
	}
	if len(c.Request.Tools) != 1 || c.Request.Tools[0].Name != "read_file" || c.Request.Tools[0].Description != "Read a file." ||
		!sameJSON(t, c.Request.Tools[0].Parameters, `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`) {
		t.Errorf("tools %+v", c.Request.Tools)
	}
	if !sameJSON(t, c.Request.ResponseSchema, `{"type":"object","properties":{"text":{"type":"string"}}}`) {
		t.Errorf("response schema %s", c.Request.ResponseSchema)
	}
	wantParams := map[string]string{
		"model": `"gpt-test"`, "tool_choice": `{"name":"read_file","type":"function"}`, "parallel_tool_calls": `false`,
		"text": `{"format":{"name":"answer","type":"json_schema"}}`, "reasoning": `{"effort":"high"}`,
		"max_output_tokens": `64`, "temperature": `1.5`, "top_p": `0.9`,
	}
	got := map[string]string{}
	for k, v := range c.Request.Params {
		got[k] = string(v)
	}
	for k, v := range wantParams {
		if !sameJSON(t, json.RawMessage(got[k]), v) {
			t.Errorf("params[%s] = %s, want %s", k, got[k], v)
		}
	}
	if len(got) != len(wantParams) {
		t.Errorf("params %v, want only %v", got, wantParams)
	}
}

func functionOutput(id, out string) responses.ResponseInputItemUnionParam {
	p := responses.ResponseInputItemParamOfFunctionCallOutput(out)
	p.OfFunctionCallOutput.CallID = param.NewOpt(id)
	return p
}

// TestResponsesStringInput: input as text is one user message.
func TestResponsesStringInput(t *testing.T) {
	c, err := wire.Decode("/v1/responses", []byte(`{"model":"m","input":"Hello","instructions":"Be brief."}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Message{llm.SystemMessage("Be brief."), llm.UserMessage("Hello")}
	if !reflect.DeepEqual(c.Request.Messages, want) {
		t.Errorf("messages %+v, want %+v", c.Request.Messages, want)
	}
}

// TestResponsesStreamEvents checks the stream as openai-go parses it: the
// typed events in order, sequence numbers from 0 without a gap, the text
// and the arguments accumulated from their deltas equal to the .done
// events' and the completed response's.
func TestResponsesStreamEvents(t *testing.T) {
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "Writing the file now, as asked.",
		Reasoning: []llm.Reasoning{{Text: "Plan it.", Signature: reasoningItem}},
		ToolCalls: []llm.ToolCall{{ID: "call_w", Name: "write_file", Arguments: `{"path":"notes/été.txt","content":"a line long enough to be cut"}`}}},
		FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}}
	s := &server{t: t, opts: &wire.Options{Chunk: 5}, answer: func(*wire.Call) (*llm.Response, *wire.Error) { return resp, nil }}
	client := responsesClient(s)
	stream := client.Responses.NewStreaming(t.Context(), responses.ResponseNewParams{Model: "gpt-test",
		Input: responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("hi")}})
	defer stream.Close()
	var types, added []string
	var text, args strings.Builder
	var final responses.Response
	seq := int64(0)
	for stream.Next() {
		ev := stream.Current()
		if ev.SequenceNumber != seq {
			t.Errorf("event %s has sequence_number %d, want %d", ev.Type, ev.SequenceNumber, seq)
		}
		seq++
		if len(types) == 0 || types[len(types)-1] != ev.Type {
			types = append(types, ev.Type)
		}
		switch ev.Type {
		case "response.created", "response.in_progress":
			if ev.Response.Model != "gpt-test" || ev.Response.Status != "in_progress" {
				t.Errorf("%s: model %q, status %q; want gpt-test, in_progress", ev.Type, ev.Response.Model, ev.Response.Status)
			}
		case "response.output_item.added":
			added = append(added, string(ev.Item.Type)+"/"+string(ev.Item.Status))
		case "response.output_item.done":
			// A reasoning item is done as it was recorded, encrypted content
			// and all (clients that collect items from these events send it
			// back whole).
			if ev.OutputIndex == 0 {
				if got := ev.Item.RawJSON(); canonical(t, got) != reasoningItem {
					t.Errorf("output_item.done reasoning item %s, want %s", got, reasoningItem)
				}
			}
		case "response.content_part.added":
			// As OpenAI's streaming reference shows it: an empty output_text
			// part whose annotations are an empty list, not null.
			var e struct {
				Part map[string]any `json:"part"`
			}
			if err := json.Unmarshal([]byte(ev.RawJSON()), &e); err != nil {
				t.Fatal(err)
			}
			if want := map[string]any{"type": "output_text", "text": "", "annotations": []any{}}; !reflect.DeepEqual(e.Part, want) {
				t.Errorf("content_part.added part %v, want %v", e.Part, want)
			}
		case "response.output_text.delta":
			text.WriteString(ev.Delta)
		case "response.output_text.done":
			if ev.Text != text.String() {
				t.Errorf("output_text.done %q, deltas %q", ev.Text, text.String())
			}
		case "response.function_call_arguments.delta":
			args.WriteString(ev.Delta)
		case "response.function_call_arguments.done":
			if ev.Arguments != args.String() {
				t.Errorf("arguments.done %q, deltas %q", ev.Arguments, args.String())
			}
		case "response.completed":
			final = ev.Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	wantTypes := []string{"response.created", "response.in_progress",
		"response.output_item.added", "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
		"response.output_item.added", "response.content_part.added", "response.output_text.delta", "response.output_text.done",
		"response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done",
		"response.output_item.done", "response.completed"}
	if !reflect.DeepEqual(types, wantTypes) {
		t.Errorf("events\n got %q\nwant %q", types, wantTypes)
	}
	if text.String() != resp.Message.Content || args.String() != resp.Message.ToolCalls[0].Arguments {
		t.Errorf("deltas: text %q, arguments %q", text.String(), args.String())
	}
	if final.Status != "completed" || final.OutputText() != resp.Message.Content || len(final.Output) != 3 || final.Usage.InputTokens != 10 || final.Model != "gpt-test" {
		t.Errorf("completed response %+v", final)
	}
	// Each item is announced by its type, in progress (a reasoning item, as
	// OpenAI streams it, with no status); the SDKs dispatch on
	// the type (a message's text is read only from a "message" item).
	if want := []string{"reasoning/", "message/in_progress", "function_call/in_progress"}; !reflect.DeepEqual(added, want) {
		t.Errorf("output_item.added items %q, want %q", added, want)
	}
	// The completed response holds the reasoning item as it was recorded
	// (an SDK agent keeping the final response sends it back whole).
	if got := final.Output[0].RawJSON(); canonical(t, got) != reasoningItem {
		t.Errorf("completed response's reasoning item %s, want %s", got, reasoningItem)
	}
	if got := final.Output[2].AsFunctionCall(); got.CallID != "call_w" || got.Arguments != resp.Message.ToolCalls[0].Arguments {
		t.Errorf("function call %+v", got)
	}
}

// TestResponsesPreviousResponseID chains two calls with openai-go the way
// an agent keeping its state on the server does (previous_response_id and
// only the new items), and checks that a Decoder told of the first answer
// decodes the second to the conversation a stateless agent (store: false,
// the whole input) sends; and that an id the run never served is refused.
func TestResponsesPreviousResponseID(t *testing.T) {
	var dec wire.Decoder
	var calls []*wire.Call
	answers := []*llm.Response{
		{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path":"a.txt"}`}), FinishReason: llm.FinishToolCalls},
		{Message: llm.AssistantMessage("a.txt says alpha."), FinishReason: llm.FinishStop},
		{Message: llm.AssistantMessage("You're welcome."), FinishReason: llm.FinishStop},
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c, err := dec.Decode(r.URL.Path, body)
		if err != nil {
			(&wire.Error{Kind: llm.ErrBadRequest, Message: err.Error()}).Write(w, wire.Responses)
			return
		}
		resp := answers[len(calls)]
		calls = append(calls, c)
		wire.WriteResponse(w, c, resp, &wire.Options{ID: dec.Keep(c, resp)})
	})
	client := responsesClient(h)
	first, err := client.Responses.New(t.Context(), responses.ResponseNewParams{Model: "gpt-test", Instructions: param.NewOpt("Be careful."),
		Input: responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("Read a.txt.")}})
	if err != nil {
		t.Fatal(err)
	}
	// The second call streams: a chain may mix both.
	stream := client.Responses.NewStreaming(t.Context(), responses.ResponseNewParams{Model: "gpt-test", Instructions: param.NewOpt("Be careful."),
		PreviousResponseID: param.NewOpt(first.ID),
		Input:              responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{functionOutput("call_1", "alpha")}}})
	var second responses.Response
	for stream.Next() {
		if ev := stream.Current(); ev.Type == "response.completed" {
			second = ev.Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	stream.Close()
	if _, err := client.Responses.New(t.Context(), responses.ResponseNewParams{Model: "gpt-test", Instructions: param.NewOpt("Be careful."),
		PreviousResponseID: param.NewOpt(second.ID),
		Input:              responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("Thanks.")}}); err != nil {
		t.Fatal(err)
	}
	want := []llm.Message{
		llm.SystemMessage("Be careful."),
		llm.UserMessage("Read a.txt."),
		answers[0].Message,
		llm.ToolMessage("call_1", "read_file", "alpha"),
		answers[1].Message,
		llm.UserMessage("Thanks."),
	}
	if !reflect.DeepEqual(calls[2].Request.Messages, want) {
		t.Errorf("third call\n got %+v\nwant %+v", calls[2].Request.Messages, want)
	}
	if first.ID == second.ID || !strings.HasPrefix(first.ID, "resp_") {
		t.Errorf("response ids %q and %q: want two distinct resp_ ids", first.ID, second.ID)
	}
	// The same exchange gets the same id: a replay sends it again.
	var again wire.Decoder
	c, err := again.Decode("/v1/responses", []byte(`{"model":"gpt-test","instructions":"Be careful.","input":"Read a.txt."}`))
	if err != nil {
		t.Fatal(err)
	}
	if id := again.Keep(c, answers[0]); id == "" {
		t.Error("no id kept")
	}

	_, err = client.Responses.New(t.Context(), responses.ResponseNewParams{Model: "gpt-test", PreviousResponseID: param.NewOpt("resp_elsewhere"),
		Input: responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("hi")}})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.Message, `previous_response_id "resp_elsewhere"`) {
		t.Errorf("an unknown previous_response_id: %v, want a 400 naming it", err)
	}
}

// TestResponsesKeepIsDeterministic: the id of a response depends on the
// exchange only.
func TestResponsesKeepIsDeterministic(t *testing.T) {
	body := []byte(`{"model":"m","input":"hi"}`)
	resp := &llm.Response{Message: llm.AssistantMessage("hello")}
	ids := map[string]bool{}
	for range 2 {
		var d wire.Decoder
		c, err := d.Decode("/v1/responses", body)
		if err != nil {
			t.Fatal(err)
		}
		ids[d.Keep(c, resp)] = true
		ids[d.Keep(c, &llm.Response{Message: llm.AssistantMessage("hi there")})] = true
	}
	if len(ids) != 2 {
		t.Errorf("ids %v: want one per distinct exchange", ids)
	}
	c, _ := wire.Decode("/v1/chat/completions", []byte(`{"messages":[]}`))
	if id := new(wire.Decoder).Keep(c, resp); id != "" {
		t.Errorf("a Chat Completions call kept as %q", id)
	}
}

// TestResponsesStreamError: an error after the stream began is an "error"
// event, then response.failed; openai-go ends the stream with the error.
func TestResponsesStreamError(t *testing.T) {
	ev := (&wire.Error{Kind: llm.ErrRateLimited, Message: "too fast"}).Event(wire.Responses)
	if !strings.HasPrefix(string(ev), "event: error\ndata: {") || !strings.Contains(string(ev), "event: response.failed\n") {
		t.Errorf("events:\n%s", ev)
	}
	var first struct {
		Type  string `json:"type"`
		Error struct {
			Type, Message string
		} `json:"error"`
		Message string `json:"message"`
	}
	line := strings.SplitN(string(ev), "\n", 3)[1]
	if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &first); err != nil {
		t.Fatal(err)
	}
	if first.Type != "error" || first.Error.Type != "rate_limit_exceeded" || first.Message != "too fast" {
		t.Errorf("error event %+v", first)
	}
	// Then response.failed holds a response object (object "response",
	// status failed) whose error repeats the code and message.
	_, failedData, _ := strings.Cut(string(ev), "event: response.failed\ndata: ")
	failedData, _, _ = strings.Cut(failedData, "\n")
	var failed struct {
		Response struct {
			ID, Object, Status string
			Error              struct{ Code, Message string }
		} `json:"response"`
	}
	if err := json.Unmarshal([]byte(failedData), &failed); err != nil {
		t.Fatal(err)
	}
	if r := failed.Response; r.Object != "response" || r.ID == "response" || r.Status != "failed" || r.Error.Code != "rate_limit_exceeded" || r.Error.Message != "too fast" {
		t.Errorf("response.failed %+v", failed.Response)
	}
	// Sent alone, with no stream before it to count, neither event has a
	// sequence_number.
	if strings.Contains(string(ev), "sequence_number") {
		t.Errorf("events numbered without a stream to count:\n%s", ev)
	}
}

// TestResponsesAnswerNamesTheModel: a JSON answer names the model the
// request asked for, as the API does (agents log it, and some check it).
func TestResponsesAnswerNamesTheModel(t *testing.T) {
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "ok"}, FinishReason: llm.FinishStop}
	s := &server{t: t, answer: func(*wire.Call) (*llm.Response, *wire.Error) { return resp, nil }}
	client := responsesClient(s)
	got, err := client.Responses.New(t.Context(), responses.ResponseNewParams{Model: "gpt-named",
		Input: responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Model != "gpt-named" || got.OutputText() != "ok" || got.Status != "completed" {
		t.Errorf("response: model %q, text %q, status %q; want gpt-named, ok, completed", got.Model, got.OutputText(), got.Status)
	}
	// Served under another model's name (Options.Model), the answer says
	// that name, and the request's tool choice stays what it was.
	s.opts = &wire.Options{Model: "gpt-served"}
	got, err = client.Responses.New(t.Context(), responses.ResponseNewParams{Model: "gpt-named",
		Input: responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Model != "gpt-served" || !strings.Contains(got.RawJSON(), `"tool_choice":"auto"`) {
		t.Errorf("served as gpt-served: model %q in %s", got.Model, got.RawJSON())
	}
}

func TestResponsesDecodeErrors(t *testing.T) {
	cases := []struct{ body, want string }{
		{`{"input":[{"role":"wizard","content":"x"}]}`, `input[0].role: unknown role "wizard"`},
		{`{"input":[{"type":"web_search_call","id":"ws_1"}]}`, `input[0].type: "web_search_call" items are not supported`},
		{`{"input":7}`, `input:`},
		{`{"input":"hi","tools":[{"type":"web_search"}]}`, `tools[0].type: "web_search" tools are not supported`},
		{`{"input":[{"role":"user","content":7}]}`, `input[0].content:`},
		{`{"instructions":["x"]}`, `instructions:`},
		{`not json`, `invalid request: responses body:`},
	}
	for _, tc := range cases {
		_, err := wire.Decode("/v1/responses", []byte(tc.body))
		if err == nil || !errors.Is(err, wire.ErrRequest) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Decode(%s) = %v, want an error holding %q", tc.body, err, tc.want)
		}
	}
}

// TestResponsesProviderSendsReasoningBack: the openai-responses provider
// sends a reasoning item back as it came, and wire decodes the request to
// the conversation it was given, reasoning included.
func TestResponsesProviderSendsReasoningBack(t *testing.T) {
	req := &llm.Request{Messages: []llm.Message{
		llm.SystemMessage("You are careful."),
		llm.UserMessage("Read a.txt."),
		{Role: llm.RoleAssistant, Reasoning: []llm.Reasoning{{Text: "The user wants a file read.", Signature: reasoningItem}},
			ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"a.txt"}`}}},
		llm.ToolMessage("call_1", "read_file", "alpha"),
	}}
	for _, noStream := range []bool{false, true} {
		s := &server{t: t, answer: func(*wire.Call) (*llm.Response, *wire.Error) {
			return &llm.Response{Message: llm.AssistantMessage("ok")}, nil
		}}
		if _, err := open(t, "openai-responses/gpt-test", s, noStream).Generate(t.Context(), req); err != nil {
			t.Fatal(err)
		}
		if got := s.calls[0].Request.Messages; !reflect.DeepEqual(got, req.Messages) {
			t.Errorf("no stream %v: decoded\n got %+v\nwant %+v", noStream, got, req.Messages)
		}
	}
}

// canonical returns the JSON text s with its keys sorted and no spaces.
func canonical(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestResponsesAnswerNamesItsPrevious: an answer to a request continuing
// a previous response names it in previous_response_id, as the API's
// response object does; one to a request continuing none says null.
func TestResponsesAnswerNamesItsPrevious(t *testing.T) {
	resp := &llm.Response{Message: llm.AssistantMessage("Hi."), FinishReason: llm.FinishStop}
	for prev, want := range map[string]string{"resp_1": `"previous_response_id":"resp_1"`, "": `"previous_response_id":null`} {
		for _, stream := range []bool{false, true} {
			_, body := wire.EncodeResponse(&wire.Call{Format: wire.Responses, Stream: stream, PreviousResponseID: prev}, resp, nil)
			if !strings.Contains(string(body), want) {
				t.Errorf("previous %q, stream %v: body %s, want %s", prev, stream, body, want)
			}
		}
	}
}
