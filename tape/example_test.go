package tape_test

import (
	"fmt"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

func ExampleEncode() {
	tp := &tape.Tape{Entries: []tape.Entry{{
		Response: &llm.Response{
			Message:      llm.AssistantMessage("Done:\nhello\nworld\n", llm.ToolCall{ID: "c1", Name: "write_file", Arguments: `{"path": "a.txt",}`}),
			FinishReason: llm.FinishToolCalls,
		},
		Request: tape.Summarize(&llm.Request{Messages: []llm.Message{llm.UserMessage("Write it.")}, Tools: []llm.ToolDefinition{{Name: "write_file"}, {Name: "read_file"}}}),
	}}}
	var b strings.Builder
	if err := tape.Encode(&b, tp); err != nil {
		fmt.Println(err)
	}
	fmt.Print(b.String())
	// Output:
	// format: tapeloop/v1
	// tape:
	//   - response:
	//       content: |
	//         Done:
	//         hello
	//         world
	//       tool_calls:
	//         - id: c1
	//           name: write_file
	//           arguments: '{"path": "a.txt",}'
	//       finish_reason: tool_calls
	//     request:
	//       tools: [read_file, write_file]
	//       last_message:
	//         role: user
	//         content: Write it.
}
