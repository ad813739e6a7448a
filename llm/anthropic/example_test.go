package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/anthropic" // registers "anthropic"
)

// Example opens a Claude model and makes one streamed call. The server here
// is a local httptest server speaking the Messages wire, so the example needs
// no real key and no network.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range []string{
			`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":20,"output_tokens":1}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"read_file","input":{}}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\":"}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":" \"notes.txt\"}"}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":12}}`,
			`{"type":"message_stop"}`,
		} {
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", eventType(e), e)
		}
	}))
	defer srv.Close()

	model, err := llm.Open(context.Background(), "anthropic/claude-sonnet-4-5", &llm.OpenOptions{
		APIKey:     "sk-ant-example",
		BaseURL:    srv.URL,
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
	fmt.Println(resp.FinishReason, c.ID, c.Name, c.Arguments, resp.Usage.OutputTokens)
	// Output: tool_calls toolu_1 read_file {"path": "notes.txt"} 12
}

// eventType returns the "type" of an event's JSON.
func eventType(data string) string {
	var v struct{ Type string }
	_ = json.Unmarshal([]byte(data), &v)
	return v.Type
}
