package wire_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// bedrockClient is an aws-sdk-go-v2 Bedrock Runtime client of h, served in
// process, signing with a dummy key, its own retries off.
func bedrockClient(h http.Handler) *bedrockruntime.Client {
	return bedrockruntime.New(bedrockruntime.Options{
		Region: "eu-west-1", BaseEndpoint: aws.String("http://bedrock.test"),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "not-a-secret"}, nil
		}),
		HTTPClient: handlerClient(h), RetryMaxAttempts: 1,
	})
}

// bedrockServer decodes each request with wire.Decode, keeps it and its
// headers, and answers with answer's response or error.
type bedrockServer struct {
	t       *testing.T
	calls   []*wire.Call
	headers []http.Header
	answer  func(*wire.Call) (*llm.Response, *wire.Error)
}

func (s *bedrockServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c, err := wire.Decode(r.URL.Path, body)
	if err != nil {
		s.t.Errorf("decoding %s: %v\n%s", r.URL.Path, err, body)
		(&wire.Error{Status: 400, Message: err.Error()}).Write(w, wire.Bedrock)
		return
	}
	s.calls, s.headers = append(s.calls, c), append(s.headers, r.Header.Clone())
	resp, e := s.answer(c)
	if e != nil {
		e.Write(w, c.Format)
		return
	}
	wire.WriteResponse(w, c, resp, &wire.Options{Chunk: 5})
}

// bedrockInput is a Converse conversation: a system prompt, two tools
// (one forced), inference settings, a tool call with its result and a
// reasoning block sent back with its signature.
func bedrockInput(model string) *bedrockruntime.ConverseInput {
	schema := document.NewLazyDocument(map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}})
	return &bedrockruntime.ConverseInput{
		ModelId: aws.String(model),
		System:  []types.SystemContentBlock{&types.SystemContentBlockMemberText{Value: "You plan trips."}},
		Messages: []types.Message{
			{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: "Weather in Lyon?"}}},
			{Role: types.ConversationRoleAssistant, Content: []types.ContentBlock{
				&types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberReasoningText{Value: types.ReasoningTextBlock{Text: aws.String("Look it up."), Signature: aws.String("c2lnLTE=")}}},
				&types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{ToolUseId: aws.String("tooluse_1"), Name: aws.String("weather"), Input: document.NewLazyDocument(map[string]any{"city": "Lyon"})}},
			}},
			{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberToolResult{Value: types.ToolResultBlock{
				ToolUseId: aws.String("tooluse_1"), Status: types.ToolResultStatusError,
				Content: []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberText{Value: "station offline"}},
			}}}},
		},
		ToolConfig: &types.ToolConfiguration{
			Tools: []types.Tool{
				&types.ToolMemberToolSpec{Value: types.ToolSpecification{Name: aws.String("weather"), Description: aws.String("Today's weather in a city."), InputSchema: &types.ToolInputSchemaMemberJson{Value: schema}}},
				&types.ToolMemberToolSpec{Value: types.ToolSpecification{Name: aws.String("book"), Description: aws.String("Books a train."), InputSchema: &types.ToolInputSchemaMemberJson{Value: schema}}},
			},
			ToolChoice: &types.ToolChoiceMemberTool{Value: types.SpecificToolChoice{Name: aws.String("weather")}},
		},
		InferenceConfig: &types.InferenceConfiguration{MaxTokens: aws.Int32(300), Temperature: aws.Float32(0.5), StopSequences: []string{"END"}},
		RequestMetadata: map[string]string{"team": "travel"},
	}
}

// TestBedrockConverseRequest: what aws-sdk-go-v2 sends decodes into the
// conversation replay compares, the model from the path (an ARN, escaped
// there), the parameters that change behaviour pinned by their wire names
// and the request metadata not; the signature is in the credential
// headers wire.Bedrock names.
func TestBedrockConverseRequest(t *testing.T) {
	s := &bedrockServer{t: t, answer: func(*wire.Call) (*llm.Response, *wire.Error) {
		return &llm.Response{Message: llm.AssistantMessage("Cloudy.")}, nil
	}}
	const model = "arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-sonnet-4"
	if _, err := bedrockClient(s).Converse(t.Context(), bedrockInput(model)); err != nil {
		t.Fatal(err)
	}
	c := s.calls[0]
	if c.Format != wire.Bedrock || c.Model != model || c.Stream {
		t.Errorf("format %v, model %q, stream %v; want bedrock, %q, not streamed", c.Format, c.Model, c.Stream, model)
	}
	want := []llm.Message{
		llm.SystemMessage("You plan trips."),
		llm.UserMessage("Weather in Lyon?"),
		{Role: llm.RoleAssistant, Reasoning: []llm.Reasoning{{Text: "Look it up.", Signature: "c2lnLTE="}},
			ToolCalls: []llm.ToolCall{{ID: "tooluse_1", Name: "weather", Arguments: `{"city":"Lyon"}`}}},
		{Role: llm.RoleTool, ToolCallID: "tooluse_1", Name: "weather", Content: "station offline", IsError: true},
	}
	if !reflect.DeepEqual(c.Request.Messages, want) {
		t.Errorf("messages:\n got %+v\nwant %+v", c.Request.Messages, want)
	}
	if len(c.Request.Tools) != 2 || c.Request.Tools[1].Name != "book" || c.Request.Tools[1].Description != "Books a train." ||
		string(c.Request.Tools[0].Parameters) != `{"properties":{"city":{"type":"string"}},"type":"object"}` {
		t.Errorf("tools: %+v", c.Request.Tools)
	}
	params := map[string]string{}
	for k, v := range c.Request.Params {
		params[k] = string(v)
	}
	wantParams := map[string]string{
		"model": `"` + model + `"`, "toolChoice": `{"tool":{"name":"weather"}}`,
		"maxTokens": "300", "temperature": "0.5", "stopSequences": `["END"]`,
	}
	if !reflect.DeepEqual(params, wantParams) {
		t.Errorf("params:\n got %v\nwant %v", params, wantParams)
	}
	creds := wire.Bedrock.Credentials().Headers
	for _, h := range []string{"Authorization", "X-Amz-Date"} {
		if s.headers[0].Get(h) == "" || !contains(creds, h) {
			t.Errorf("header %s: sent %q; credential headers %v", h, s.headers[0].Get(h), creds)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// bedrockAnswer is an answer with every part Converse carries back:
// reasoning with its signature, text, two tool calls (one with arguments
// that are not JSON, which a stream carries byte for byte), usage with
// cache reads and writes.
func bedrockAnswer() *llm.Response {
	return &llm.Response{
		Message: llm.Message{Role: llm.RoleAssistant, Content: "Checking both.",
			Reasoning: []llm.Reasoning{{Text: "Two lookups are needed.", Signature: "c2lnLTI="}},
			ToolCalls: []llm.ToolCall{
				{ID: "tooluse_a", Name: "weather", Arguments: `{"city":"Lyon"}`},
				{ID: "tooluse_b", Name: "book", Arguments: `{"to": "Nice",}`},
			}},
		FinishReason: llm.FinishToolCalls,
		Usage:        llm.Usage{InputTokens: 120, OutputTokens: 40, CachedInputTokens: 80, CacheWriteTokens: 10},
	}
}

// TestBedrockAnswersParse: the SDK parses what wire encodes, JSON and
// streamed, and DecodeAnswer reads each back to the response it encoded.
func TestBedrockAnswersParse(t *testing.T) {
	resp := bedrockAnswer()
	s := &bedrockServer{t: t, answer: func(*wire.Call) (*llm.Response, *wire.Error) { return resp, nil }}
	client := bedrockClient(s)
	in := bedrockInput("amazon.nova-pro-v1:0")

	out, err := client.Converse(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	msg := out.Output.(*types.ConverseOutputMemberMessage).Value
	if out.StopReason != types.StopReasonToolUse || len(msg.Content) != 4 {
		t.Fatalf("stop %s, %d blocks", out.StopReason, len(msg.Content))
	}
	if r := msg.Content[0].(*types.ContentBlockMemberReasoningContent).Value.(*types.ReasoningContentBlockMemberReasoningText).Value; *r.Text != "Two lookups are needed." || *r.Signature != "c2lnLTI=" {
		t.Errorf("reasoning %q %q", *r.Text, *r.Signature)
	}
	if txt := msg.Content[1].(*types.ContentBlockMemberText).Value; txt != "Checking both." {
		t.Errorf("text %q", txt)
	}
	var args map[string]any
	tu := msg.Content[2].(*types.ContentBlockMemberToolUse).Value
	if err := tu.Input.UnmarshalSmithyDocument(&args); err != nil || args["city"] != "Lyon" || *tu.ToolUseId != "tooluse_a" {
		t.Errorf("tool use %s %v (%v)", *tu.ToolUseId, args, err)
	}
	var broken string
	if err := msg.Content[3].(*types.ContentBlockMemberToolUse).Value.Input.UnmarshalSmithyDocument(&broken); err != nil || broken != `{"to": "Nice",}` {
		t.Errorf("broken arguments as a whole message: %q (%v)", broken, err)
	}
	if u := out.Usage; *u.InputTokens != 30 || *u.OutputTokens != 40 || *u.CacheReadInputTokens != 80 || *u.CacheWriteInputTokens != 10 || *u.TotalTokens != 160 {
		t.Errorf("usage %+v", u)
	}

	stream, err := client.ConverseStream(t.Context(), (*bedrockruntime.ConverseStreamInput)(convertInput(in)))
	if err != nil {
		t.Fatal(err)
	}
	es := stream.GetStream()
	var text, reasoning, signature string
	calls := map[int32]*strings.Builder{}
	var ids []string
	var stop types.StopReason
	var usage *types.TokenUsage
	for ev := range es.Events() {
		switch e := ev.(type) {
		case *types.ConverseStreamOutputMemberContentBlockStart:
			if tu, ok := e.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
				calls[*e.Value.ContentBlockIndex] = &strings.Builder{}
				ids = append(ids, *tu.Value.ToolUseId)
			}
		case *types.ConverseStreamOutputMemberContentBlockDelta:
			switch d := e.Value.Delta.(type) {
			case *types.ContentBlockDeltaMemberText:
				text += d.Value
			case *types.ContentBlockDeltaMemberToolUse:
				calls[*e.Value.ContentBlockIndex].WriteString(*d.Value.Input)
			case *types.ContentBlockDeltaMemberReasoningContent:
				switch r := d.Value.(type) {
				case *types.ReasoningContentBlockDeltaMemberText:
					reasoning += r.Value
				case *types.ReasoningContentBlockDeltaMemberSignature:
					signature += r.Value
				}
			}
		case *types.ConverseStreamOutputMemberMessageStop:
			stop = e.Value.StopReason
		case *types.ConverseStreamOutputMemberMetadata:
			usage = e.Value.Usage
		}
	}
	if err := es.Err(); err != nil {
		t.Fatal(err)
	}
	es.Close()
	if text != "Checking both." || reasoning != "Two lookups are needed." || signature != "c2lnLTI=" || stop != types.StopReasonToolUse {
		t.Errorf("stream: text %q reasoning %q signature %q stop %s", text, reasoning, signature, stop)
	}
	if len(ids) != 2 || calls[2].String() != `{"city":"Lyon"}` || calls[3].String() != `{"to": "Nice",}` {
		t.Errorf("stream calls %v: %q %q", ids, calls[2], calls[3])
	}
	if usage == nil || *usage.CacheReadInputTokens != 80 || *usage.InputTokens != 30 {
		t.Errorf("stream usage %+v", usage)
	}

	for _, streamed := range []bool{false, true} {
		c := &wire.Call{Format: wire.Bedrock, Model: "m", Stream: streamed}
		ct, body := wire.EncodeResponse(c, resp, &wire.Options{Chunk: 4})
		got, err := wire.DecodeAnswer(c, 200, http.Header{"Content-Type": {ct}}, body)
		if err != nil {
			t.Fatalf("DecodeAnswer (stream %v): %v", streamed, err)
		}
		want := *resp
		if !streamed {
			// A whole message holds arguments as a document: broken ones
			// come back as the text they were.
			want.Message.ToolCalls = append([]llm.ToolCall(nil), resp.Message.ToolCalls...)
		}
		if !reflect.DeepEqual(got, &want) {
			t.Errorf("DecodeAnswer(encode) (stream %v):\n got %+v\nwant %+v", streamed, got, &want)
		}
	}
}

// convertInput is in as a ConverseStream input (the two share fields).
func convertInput(in *bedrockruntime.ConverseInput) *bedrockruntime.ConverseStreamInput {
	return &bedrockruntime.ConverseStreamInput{
		ModelId: in.ModelId, System: in.System, Messages: in.Messages, ToolConfig: in.ToolConfig,
		InferenceConfig: in.InferenceConfig, RequestMetadata: in.RequestMetadata,
	}
}

// TestBedrockErrors: every failure reaches the SDK as Bedrock's typed
// exception, before a stream and in the middle of one, and DecodeAnswer
// reads each back to its kind.
func TestBedrockErrors(t *testing.T) {
	cases := []struct {
		err    *wire.Error
		target any
		kind   llm.ErrorKind
	}{
		{&wire.Error{Kind: llm.ErrRateLimited, RetryAfter: 3 * time.Second}, new(*types.ThrottlingException), llm.ErrRateLimited},
		{&wire.Error{Kind: llm.ErrOverloaded}, new(*types.ServiceUnavailableException), llm.ErrOverloaded},
		{&wire.Error{Kind: llm.ErrBadRequest, Message: "malformed input"}, new(*types.ValidationException), llm.ErrBadRequest},
		{&wire.Error{Kind: llm.ErrContextTooLong, Message: "12000 tokens"}, new(*types.ValidationException), llm.ErrContextTooLong},
		{&wire.Error{Kind: llm.ErrTimeout}, new(*types.ModelTimeoutException), llm.ErrTimeout},
		{&wire.Error{Status: 403, Message: "no access"}, new(*types.AccessDeniedException), llm.ErrAuth},
		{&wire.Error{Status: 500}, new(*types.InternalServerException), llm.ErrOverloaded},
	}
	for _, tc := range cases {
		s := &bedrockServer{t: t, answer: func(*wire.Call) (*llm.Response, *wire.Error) { return nil, tc.err }}
		_, err := bedrockClient(s).Converse(t.Context(), bedrockInput("amazon.nova-lite-v1:0"))
		if !errors.As(err, tc.target) {
			t.Errorf("%+v: the SDK got %v, want %T", tc.err, err, tc.target)
		}
		c := &wire.Call{Format: wire.Bedrock, Model: "m"}
		_, got := wire.DecodeAnswer(c, tc.err.StatusCode(wire.Bedrock), tc.err.HeaderFor(wire.Bedrock), tc.err.Body(wire.Bedrock))
		var pe *llm.ProviderError
		if !errors.As(got, &pe) || pe.Kind != tc.kind {
			t.Errorf("%+v: DecodeAnswer gave %v, want kind %s", tc.err, got, tc.kind)
		}
	}

	// A stream that fails after it began: an exception message.
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := wire.Decode(r.URL.Path, []byte(`{}`))
		if err != nil || !c.Stream {
			t.Errorf("decoding %s: %v", r.URL.Path, err)
			return
		}
		_, body := wire.EncodeResponse(c, &llm.Response{Message: llm.AssistantMessage("Partial")}, nil)
		w.Header().Set("Content-Type", wire.ContentEventStream)
		w.Write(body[:binary.BigEndian.Uint32(body)]) // messageStart alone
		w.Write((&wire.Error{Kind: llm.ErrRateLimited, Message: "slow down"}).Event(wire.Bedrock))
	})
	out, err := bedrockClient(h).ConverseStream(t.Context(), convertInput(bedrockInput("amazon.nova-lite-v1:0")))
	if err != nil {
		t.Fatal(err)
	}
	es := out.GetStream()
	for range es.Events() {
	}
	var te *types.ThrottlingException
	if !errors.As(es.Err(), &te) || !strings.Contains(te.ErrorMessage(), "slow down") {
		t.Errorf("a failed stream: %v, want a ThrottlingException saying slow down", es.Err())
	}
	es.Close()
	c := &wire.Call{Format: wire.Bedrock, Stream: true}
	_, got := wire.DecodeAnswer(c, 200, nil, (&wire.Error{Kind: llm.ErrRateLimited, Message: "slow down"}).Event(wire.Bedrock))
	var pe *llm.ProviderError
	if !errors.As(got, &pe) || pe.Kind != llm.ErrRateLimited {
		t.Errorf("DecodeAnswer of a stream exception: %v, want rate limited", got)
	}
}
