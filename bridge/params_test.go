package bridge_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/builtin" // the providers llm.Open finds by name
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

// TestRequestOptionsReachTheWire: a model of each built-in provider,
// called with request options on its context (what tapeloop's loop sends
// for a scenario's setup.loop.request), sends them in its format's own
// names over the options it was opened with.
func TestRequestOptionsReachTheWire(t *testing.T) {
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
	opened, carried := 0.1, 0.5
	env := map[string]string{"AWS_REGION": "us-east-1"}
	cases := []struct {
		name, key, root string
		want            map[string]string
	}{
		{"openai/gpt-4.1", "k", "/v1", map[string]string{"temperature": "0.5", "max_completion_tokens": "77", "stop": `["END"]`}},
		{"openai-responses/gpt-5", "k", "/v1", map[string]string{"temperature": "0.5", "max_output_tokens": "77"}},
		{"anthropic/claude-sonnet-4-5", "k", "", map[string]string{"temperature": "0.5", "max_tokens": "77", "stop_sequences": `["END"]`}},
		{"gemini/gemini-2.5-flash", "k", "", map[string]string{"temperature": "0.5", "maxOutputTokens": "77", "stopSequences": `["END"]`}},
		{"bedrock/amazon.nova-pro-v1:0", "id:secret", "", map[string]string{"temperature": "0.5", "maxTokens": "77", "stopSequences": `["END"]`}},
	}
	for _, c := range cases {
		m, err := llm.Open(t.Context(), c.name, &llm.OpenOptions{APIKey: c.key, BaseURL: srv.URL + c.root, NoStream: true,
			Request: llm.RequestOptions{Temperature: &opened, MaxTokens: 9}, Getenv: func(k string) string { return env[k] }})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ctx := llm.WithRequestOptions(t.Context(), llm.RequestOptions{Temperature: &carried, MaxTokens: 77, Stop: []string{"END"}})
		if _, err := m.Generate(ctx, &llm.Request{Messages: []llm.Message{llm.UserMessage("Hi.")}}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q (all: %v)", c.name, k, got[k], v, got)
			}
		}
	}
}

// TestVersionHeaderAloneIsPinned: a Messages request that sends none of
// the parameters (no model, no max_tokens) still has its anthropic-version
// header pinned, as its only parameter, and is answered.
func TestVersionHeaderAloneIsPinned(t *testing.T) {
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
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(`{"messages": [{"role": "user", "content": "Hi."}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Done.") {
		t.Fatalf("%d %s, want the answer", resp.StatusCode, body)
	}
	if want := `"2023-06-01"`; len(got) != 1 || got["anthropic-version"] != want {
		t.Errorf("params = %v, want only anthropic-version %s", got, want)
	}
}
