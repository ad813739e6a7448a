package bridge_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/llm"
)

// TestSDKParamsReachTheModel: the parameters an official SDK sends (and,
// for Messages, its anthropic-version header) reach the request the
// bridge's model gets, by wire name, as a recording pins them; user ids
// and metadata do not.
func TestSDKParamsReachTheModel(t *testing.T) {
	var got map[string]string
	model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		got = map[string]string{}
		for k, v := range req.Params {
			got[k] = string(v)
		}
		return &llm.Response{Message: llm.AssistantMessage("Done.")}, nil
	})
	srv := httptest.NewServer(bridge.Handler(model, nil))
	defer srv.Close()
	ctx := context.Background()

	ac := anthropic.NewClient(aoption.WithBaseURL(srv.URL), aoption.WithAPIKey("k"), aoption.WithMaxRetries(0))
	if _, err := ac.Messages.New(ctx, anthropic.MessageNewParams{
		Model: "claude-test", MaxTokens: 7, Temperature: anthropic.Float(0.5), StopSequences: []string{"END"},
		Metadata: anthropic.MetadataParam{UserID: anthropic.String("u-1")},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hi."))},
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"model": `"claude-test"`, "max_tokens": "7", "temperature": "0.5", "stop_sequences": `["END"]`, "anthropic-version": `"2023-06-01"`}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("messages: params[%s] = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("messages: params = %v, want only %v", got, want)
	}

	oc := openai.NewClient(ooption.WithBaseURL(srv.URL), ooption.WithAPIKey("k"), ooption.WithMaxRetries(0))
	if _, err := oc.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model: "gpt-4.1", Temperature: openai.Float(2), MaxTokens: openai.Int(1), User: openai.String("u-1"),
		ToolChoice: openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("none")},
		Messages:   []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi.")},
	}); err != nil {
		t.Fatal(err)
	}
	want = map[string]string{"model": `"gpt-4.1"`, "max_tokens": "1", "temperature": "2", "tool_choice": `"none"`}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("chat completions: params[%s] = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("chat completions: params = %v, want only %v", got, want)
	}
}
