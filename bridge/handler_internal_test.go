package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// TestHandlerKeepsNoSliceOfTheBody: the handler reads each request body
// into a pooled buffer, which the next request reuses. Here each body is
// overwritten as soon as its request is answered: an openai-go agent's
// four calls must go as they go with bodies left alone, and the requests
// the model was given must not change afterwards.
func TestHandlerKeepsNoSliceOfTheBody(t *testing.T) {
	run := func(overwrite bool) (got []*llm.Request, kept []string) {
		model := llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
			got = append(got, req)
			b, err := json.Marshal(req)
			if err != nil {
				return nil, err
			}
			kept = append(kept, string(b))
			if n := len(got); n < 4 {
				return &llm.Response{Message: llm.AssistantMessage(fmt.Sprintf("Step %d.", n),
					llm.ToolCall{ID: fmt.Sprintf("c%d", n), Name: "read_file", Arguments: fmt.Sprintf(`{"path":"f%d.txt"}`, n)})}, nil
			}
			return &llm.Response{Message: llm.AssistantMessage("Done.")}, nil
		})
		h := &handler{model: model}
		serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				t.Fatal(err)
			}
			h.answer(w, r, wire.OpenAI, body)
			if overwrite {
				for i := range body {
					body[i] = '#'
				}
			}
		})
		client := openai.NewClient(option.WithBaseURL(OpenAIBaseURL), option.WithHTTPClient(Client(serve)), option.WithAPIKey(APIKey), option.WithMaxRetries(0))
		params := openai.ChatCompletionNewParams{
			Model:    "gpt-test",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("You read files."), openai.UserMessage("Read three files.")},
			Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
				Name: "read_file", Description: openai.String("Read a file."),
				Parameters: openai.FunctionParameters{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}},
			})},
		}
		for range 4 {
			resp, err := client.Chat.Completions.New(t.Context(), params)
			if err != nil {
				t.Fatal(err)
			}
			msg := resp.Choices[0].Message
			params.Messages = append(params.Messages, msg.ToParam())
			for _, c := range msg.ToolCalls {
				params.Messages = append(params.Messages, openai.ToolMessage("contents of "+c.Function.Arguments, c.ID))
			}
		}
		return got, kept
	}
	fresh, _ := run(false)
	got, kept := run(true)
	if len(got) != 4 || !reflect.DeepEqual(got, fresh) {
		t.Fatalf("with each body overwritten once answered, the model was given\n%+v\nwant\n%+v", got, fresh)
	}
	for i, req := range got {
		if b, _ := json.Marshal(req); string(b) != kept[i] {
			t.Errorf("request %d changed after it was answered:\nnow %s\nwas %s", i, b, kept[i])
		}
	}
}
