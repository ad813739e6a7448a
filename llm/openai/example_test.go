package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/openai" // registers openai, ollama, vllm, ...
)

// Example opens an OpenAI-compatible model and makes one streamed call. The
// server here is a local httptest server speaking the Chat Completions wire,
// so the example needs no key and no network.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"qwen3:8b","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":"}}]},"finish_reason":null}]}`+"\n\n")
		fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"qwen3:8b","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" \"notes.txt\"}"}}]},"finish_reason":"tool_calls"}]}`+"\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()

	model, err := llm.Open(context.Background(), "openai-compatible/qwen3:8b", &llm.OpenOptions{
		BaseURL:    srv.URL + "/v1",
		HTTPClient: srv.Client(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := model.Generate(context.Background(), &llm.Request{
		Messages: []llm.Message{llm.UserMessage("What does notes.txt say?")},
		Tools:    []llm.ToolDefinition{{Name: "read_file", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := resp.Message.ToolCalls[0]
	fmt.Println(resp.FinishReason, c.ID, c.Name, c.Arguments)
	// Output: tool_calls call_1 read_file {"path": "notes.txt"}
}
