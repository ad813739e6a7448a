package replay_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/tape"
)

const weatherTape = `format: tapeloop/v1
name: weather
tape:
  - response:
      tool_calls:
        - id: call_1
          name: fetch_weather
          arguments: '{"city": "Oslo"}'
      finish_reason: tool_calls
    request:
      tools: [fetch_weather]
      last_message:
        role: user
        content: What is the weather in Oslo?
  - response:
      content: Sunny, 21C.
      finish_reason: stop
  - error: 429 Too Many Requests
`

func ExampleModel() {
	tp, err := tape.Decode(strings.NewReader(weatherTape), "weather.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	model := replay.NewModel(tp, nil)
	ctx := context.Background()
	req := &llm.Request{
		Messages: []llm.Message{llm.UserMessage("What is the weather in Oslo?")},
		Tools:    []llm.ToolDefinition{{Name: "fetch_weather"}},
	}
	resp, _ := model.Generate(ctx, req)
	call := resp.Message.ToolCalls[0]
	fmt.Println(call.Name, call.Arguments)

	req.Messages = append(req.Messages, resp.Message, llm.ToolMessage(call.ID, call.Name, "sunny, 21C"))
	resp, _ = model.Generate(ctx, req)
	fmt.Println(resp.Message.Content)

	_, err = model.Generate(ctx, req)
	fmt.Println(errors.Is(err, replay.ErrRecordedError), err)
	_, err = model.Generate(ctx, req)
	fmt.Println(errors.Is(err, replay.ErrTapeExhausted), err)
	// Output:
	// fetch_weather {"city": "Oslo"}
	// Sunny, 21C.
	// true replay: tape[2] at weather.yaml:18: recorded provider error: 429 Too Many Requests
	// true replay: weather.yaml: tape exhausted after 3 entries; the unanswered request ends with tool message (fetch_weather call_1) "sunny, 21C"
}
