package bridge

import (
	"bytes"
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
			h.answer(w, r, body)
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

// TestBodyBuffersUpToMaxPooledAreKept: a body's buffer goes back to the pool
// for the next request when it is at most maxPooled bytes, and a larger one
// (a rare huge body) is let go, so that its memory is not held for every
// request after it. sync.Pool drops a quarter of what it is given under the
// race detector, so a kept buffer is looked for over several rounds; one
// that is let go must never come back.
func TestBodyBuffersUpToMaxPooledAreKept(t *testing.T) {
	const rounds = 30
	comesBack := func(capacity int) bool {
		buf := bytes.NewBuffer(make([]byte, 0, capacity))
		back := false
		for range rounds {
			putBody(buf)
			got := bodies.Get().(*bytes.Buffer)
			back = back || got == buf
		}
		return back
	}
	if !comesBack(maxPooled) {
		t.Errorf("a buffer of exactly maxPooled (%d) bytes never came back from the pool in %d rounds", maxPooled, rounds)
	}
	if comesBack(maxPooled + 1) {
		t.Errorf("a buffer of maxPooled+1 bytes came back from the pool: a huge body's memory is kept")
	}
}
