package bridge_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/anthropic" // anthropic/, a live side
	_ "github.com/tapeloop/tapeloop/llm/openai"    // openai-compatible/, the other
)

// claudeAgent is the notes agent on anthropic-sdk-go: the same two tools,
// its own loop, streamed or not.
type claudeAgent struct {
	system, readDesc string
	stream           bool
	// opts are added to every request (parameters, headers).
	opts []aoption.RequestOption
	// alter, when set, changes the signature of each thinking block it
	// sends back (a broken agent).
	alter bool
}

func (a *claudeAgent) run(ctx context.Context, r *bridge.Run) error {
	client := anthropic.NewClient(append([]aoption.RequestOption{aoption.WithBaseURL(r.AnthropicBaseURL), aoption.WithHTTPClient(r.HTTPClient),
		aoption.WithAPIKey(r.APIKey), aoption.WithMaxRetries(0)}, a.opts...)...)
	tool := func(name, desc string, props map[string]any, required ...string) anthropic.ToolUnionParam {
		return anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{Name: name, Description: anthropic.String(desc),
			InputSchema: anthropic.ToolInputSchemaParam{Properties: props, Required: required}}}
	}
	params := anthropic.MessageNewParams{
		Model: "claude-test", MaxTokens: 1024,
		System:   []anthropic.TextBlockParam{{Text: a.system}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(r.Input[len(r.Input)-1].Content))},
		Tools: []anthropic.ToolUnionParam{
			tool("read_file", a.readDesc, map[string]any{"path": map[string]any{"type": "string"}}, "path"),
			tool("write_file", "Write a file.", map[string]any{"path": map[string]any{"type": "string"}, "content": map[string]any{"type": "string"}}, "path", "content"),
		},
	}
	for range 10 {
		var msg anthropic.Message
		if a.stream {
			s := client.Messages.NewStreaming(ctx, params)
			for s.Next() {
				if err := msg.Accumulate(s.Current()); err != nil {
					return err
				}
			}
			if err := s.Err(); err != nil {
				return err
			}
		} else {
			m, err := client.Messages.New(ctx, params)
			if err != nil {
				return err
			}
			msg = *m
		}
		turn := msg.ToParam()
		for _, b := range turn.Content {
			if a.alter && b.OfThinking != nil {
				b.OfThinking.Signature += "A"
			}
		}
		params.Messages = append(params.Messages, turn)
		var results []anthropic.ContentBlockParamUnion
		var text string
		for _, b := range msg.Content {
			switch b.Type {
			case "text":
				text += b.Text
			case "tool_use":
				out := runTool(r.Dir, b.Name, string(b.Input))
				results = append(results, anthropic.NewToolResultBlock(b.ID, out, strings.HasPrefix(out, "error:")))
			}
		}
		if len(results) == 0 {
			r.Final(text)
			return nil
		}
		params.Messages = append(params.Messages, anthropic.NewUserMessage(results...))
	}
	return errors.New("too many steps")
}

// gptAgent is the notes agent on openai-go, streamed or not.
type gptAgent struct {
	system, readDesc string
	stream           bool
	// opts are added to every request (parameters, headers).
	opts []ooption.RequestOption
}

func (a *gptAgent) run(ctx context.Context, r *bridge.Run) error {
	client := openai.NewClient(append([]ooption.RequestOption{ooption.WithBaseURL(r.OpenAIBaseURL), ooption.WithHTTPClient(r.HTTPClient),
		ooption.WithAPIKey(r.APIKey), ooption.WithMaxRetries(0)}, a.opts...)...)
	fn := func(name, desc string, params openai.FunctionParameters) openai.ChatCompletionToolUnionParam {
		return openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: name, Description: openai.String(desc), Parameters: params})
	}
	params := openai.ChatCompletionNewParams{
		Model:    "gpt-test",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(a.system), openai.UserMessage(r.Input[len(r.Input)-1].Content)},
		Tools: []openai.ChatCompletionToolUnionParam{
			fn("read_file", a.readDesc, openai.FunctionParameters{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []string{"path"}}),
			fn("write_file", "Write a file.", openai.FunctionParameters{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}, "content": map[string]any{"type": "string"}}, "required": []string{"path", "content"}}),
		},
	}
	for range 10 {
		var msg openai.ChatCompletionMessage
		if a.stream {
			s := client.Chat.Completions.NewStreaming(ctx, params)
			var acc openai.ChatCompletionAccumulator
			for s.Next() {
				acc.AddChunk(s.Current())
			}
			err := s.Err()
			s.Close()
			if err != nil {
				return err
			}
			msg = acc.Choices[0].Message
		} else {
			resp, err := client.Chat.Completions.New(ctx, params)
			if err != nil {
				return err
			}
			msg = resp.Choices[0].Message
		}
		params.Messages = append(params.Messages, msg.ToParam())
		if len(msg.ToolCalls) == 0 {
			r.Final(msg.Content)
			return nil
		}
		for _, c := range msg.ToolCalls {
			params.Messages = append(params.Messages, openai.ToolMessage(runTool(r.Dir, c.Function.Name, c.Function.Arguments), c.ID))
		}
	}
	return errors.New("too many steps")
}

// TestOfficialSDKs records each SDK agent (streamed, then replayed both
// streamed and whole) against a scripted local server reached over HTTP,
// replays it with the server closed, and fails closed when its system
// prompt or a tool's description changes.
func TestOfficialSDKs(t *testing.T) {
	const system, desc = "You keep notes in files.", "Read a file."
	type agent interface {
		run(context.Context, *bridge.Run) error
	}
	// The live model is a provider of the agent's own format: recording
	// forwards the agent's request to it.
	sdks := []struct {
		name, live, base string
		make             func(system, desc string, stream bool) agent
	}{
		{"openai-go", "openai-compatible/gpt-test", "/v1", func(s, d string, stream bool) agent { return &gptAgent{system: s, readDesc: d, stream: stream} }},
		{"anthropic-sdk-go", "anthropic/claude-test", "", func(s, d string, stream bool) agent { return &claudeAgent{system: s, readDesc: d, stream: stream} }},
	}
	for _, sdk := range sdks {
		t.Run(sdk.name, func(t *testing.T) {
			srv := httptest.NewServer(bridge.Handler(notesScript(), nil))
			live, err := llm.Open(t.Context(), sdk.live, &llm.OpenOptions{BaseURL: srv.URL + sdk.base, APIKey: "sk-local-test"})
			if err != nil {
				t.Fatal(err)
			}
			path := record(t, notesScenario, sdk.make(system, desc, true).run, live)
			srv.Close()
			for _, stream := range []bool{true, false} {
				if v := verify(t, path, sdk.make(system, desc, stream).run, stream); !v.Passed() {
					t.Fatalf("stream %v: the replay fails:\n%s", stream, fmt.Sprint(v.Failure()))
				}
			}
			failsClosed(t, verify(t, path, sdk.make(system+" Be brief.", desc, true).run, false), "notes.yaml:", "Be brief.")
			failsClosed(t, verify(t, path, sdk.make(system, "Read a text file.", false).run, false), "notes.yaml:", "read_file")
		})
	}
}

// TestRecordedErrorAndRetry: a 429 on the tape reaches the agent as a 429
// with Retry-After; the agent's retry is the next attempt of the same
// model call (model_retries), not a new turn.
func TestRecordedErrorAndRetry(t *testing.T) {
	text := strings.Replace(notesScenario, "  iterations: 3\n", "  iterations: 3\n  model_retries: 1\n", 1)
	path := record(t, text, newNotesAgent().agentFunc(), notesScript(rateLimited))
	v := verify(t, path, newNotesAgent().agentFunc(), true)
	if !v.Passed() {
		t.Fatalf("the replay fails:\n%s", fmt.Sprint(v.Failure()))
	}
	o := v.Outcome
	if o.Iterations != 3 || len(o.ModelRetries) != 1 || o.ModelRetries[0].Kind != "rate_limited" || !strings.Contains(o.ModelRetries[0].Error, "slow down") {
		t.Errorf("iterations %d, model retries %+v", o.Iterations, o.ModelRetries)
	}
	if o.Run.ModelRetries != 1 || o.Run.ModelCalls != 3 {
		t.Errorf("the run's record counts %d model calls and %d retries, want 3 and 1, as a native run counts them", o.Run.ModelCalls, o.Run.ModelRetries)
	}
}
