package openai_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"

	"github.com/tapeloop/tapeloop/llm"
)

// benchServer answers every request with a fixture: a streamed or a plain
// answer with two tool calls.
func benchServer(b *testing.B, file, contentType string) *httptest.Server {
	body, err := os.ReadFile("testdata/" + file)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// sdkParams is the request conversation() makes, built once in the SDK's own
// types, as a program calling the SDK directly would hold it.
func sdkParams(stream bool) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{
		Model: "gpt-4.1-mini",
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("You are careful."),
			openai.UserMessage("Read a.txt and bé.txt."),
			{OfAssistant: &openai.ChatCompletionAssistantMessageParam{
				Content:   openai.ChatCompletionAssistantMessageParamContentUnion{OfString: param.NewOpt("Let me look.")},
				ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: "call_prev", Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "list_dir", Arguments: `{"path":"."}`}}}},
			}},
			openai.ToolMessage("error: permission denied", "call_prev"),
		},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
			Name: "read_file", Description: param.NewOpt("Read a file."),
			Parameters: openai.FunctionParameters{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}},
		})},
	}
	if stream {
		p.StreamOptions.IncludeUsage = param.NewOpt(true)
	}
	return p
}

// BenchmarkCall compares one call through the provider with the same call
// made on the SDK directly, against the same local server: non-streamed and
// streamed, each answer carrying two tool calls.
func BenchmarkCall(b *testing.B) {
	for _, tc := range []struct {
		name, file, contentType string
		stream                  bool
	}{
		{"json", "completion-parallel-calls.json", "application/json", false},
		{"stream", "stream-parallel-calls.sse", "text/event-stream", true},
	} {
		b.Run(tc.name+"/provider", func(b *testing.B) {
			srv := benchServer(b, tc.file, tc.contentType)
			m, err := llm.Open(b.Context(), "openai/gpt-4.1-mini", &llm.OpenOptions{APIKey: "sk", BaseURL: srv.URL, HTTPClient: srv.Client(), NoStream: !tc.stream})
			if err != nil {
				b.Fatal(err)
			}
			req := conversation()
			b.ReportAllocs()
			for b.Loop() {
				resp, err := m.Generate(b.Context(), req)
				if err != nil || len(resp.Message.ToolCalls) != 2 {
					b.Fatalf("%v, %+v", err, resp)
				}
			}
		})
		b.Run(tc.name+"/sdk", func(b *testing.B) {
			srv := benchServer(b, tc.file, tc.contentType)
			client := openai.NewClient(option.WithAPIKey("sk"), option.WithBaseURL(srv.URL), option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
			params := sdkParams(tc.stream)
			b.ReportAllocs()
			for b.Loop() {
				var calls int
				if tc.stream {
					s := client.Chat.Completions.NewStreaming(b.Context(), params)
					var acc openai.ChatCompletionAccumulator
					for s.Next() {
						acc.AddChunk(s.Current())
					}
					if err := s.Err(); err != nil {
						b.Fatal(err)
					}
					_ = s.Close()
					calls = len(acc.Choices[0].Message.ToolCalls)
				} else {
					cc, err := client.Chat.Completions.New(b.Context(), params)
					if err != nil {
						b.Fatal(err)
					}
					calls = len(cc.Choices[0].Message.ToolCalls)
				}
				if calls != 2 || strings.TrimSpace(srv.URL) == "" {
					b.Fatalf("%d calls", calls)
				}
			}
		})
	}
}
