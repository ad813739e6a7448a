package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/textcalls"
	"github.com/tapeloop/tapeloop/tools"
)

// TestMaxCallsPerResponse checks the loop's limit on calls in one response
// at its boundary, for structured calls and for calls written as text: at
// llm.MaxCallsPerResponse they all run; one more ends the run with
// model_error, the exact message, and none of them run.
func TestMaxCallsPerResponse(t *testing.T) {
	structured := func(n int) step {
		calls := make([]llm.ToolCall, n)
		for i := range calls {
			calls[i] = call(fmt.Sprintf("c%d", i), "echo", `{}`)
		}
		return respond(calls...)
	}
	written := func(n int) step {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "<tool_call>{\"name\": \"echo\", \"arguments\": {\"i\": %d}}</tool_call>\n", i)
		}
		return step{resp: &llm.Response{Message: llm.AssistantMessage(b.String())}}
	}
	max := llm.MaxCallsPerResponse
	cases := []struct {
		name    string
		answer  step
		wantErr string // "" means the calls run and the run ends with final_text
	}{
		{"structured at the limit", structured(max), ""},
		{"structured over the limit", structured(max + 1),
			fmt.Sprintf("model call failed: turn 1: too many tool calls: the response holds %d calls, more than the %d one response may hold", max+1, max)},
		{"written at the limit", written(max), ""},
		{"written over the limit", written(max + 1),
			fmt.Sprintf("model call failed: turn 1: too many tool calls: the text holds more than %d calls (hermes), more than one message may hold", max)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tool := &counted{spec: tools.Spec{Name: "echo", Safety: readOnly}}
			model := script(tc.answer, final("done"))
			run, err := agent.Run(context.Background(), model, newRegistry(t, tool), []llm.Message{llm.UserMessage("go")},
				&agent.Options{TextCalls: &textcalls.Extractor{}})
			if tc.wantErr == "" {
				if err != nil || run.Termination.Reason != agent.ReasonFinalText || tool.n.Load() != int32(max) {
					t.Fatalf("got %v (%s) after %d calls ran; want final_text after %d", err, run.Termination.Reason, tool.n.Load(), max)
				}
				return
			}
			if err == nil || err.Error() != tc.wantErr {
				t.Fatalf("got error %v\nwant %s", err, tc.wantErr)
			}
			if !errors.Is(err, agent.ErrModel) || !errors.Is(err, llm.ErrTooManyCalls) || run.Termination.Reason != agent.ReasonModelError {
				t.Errorf("got %s, error %v; want model_error matching ErrModel and llm.ErrTooManyCalls", run.Termination.Reason, err)
			}
			if n := tool.n.Load(); n != 0 || model.count() != 1 {
				t.Errorf("%d calls ran and the model got %d requests; want none and 1", n, model.count())
			}
		})
	}
}

// refusingExtractor refuses every text with its error.
type refusingExtractor struct{ err error }

func (x refusingExtractor) ExtractCalls(content string, _ []llm.ToolDefinition) ([]llm.ToolCall, string, string, error) {
	return nil, content, "", x.err
}

// TestTextCallExtractorError checks that an extractor's error ends the run
// with model_error, naming the text calls.
func TestTextCallExtractorError(t *testing.T) {
	model := script(final("CALL echo {}"), final("unused"))
	_, err := agent.Run(context.Background(), model, newRegistry(t, echo("echo")), []llm.Message{llm.UserMessage("go")},
		&agent.Options{TextCalls: refusingExtractor{errors.New("cannot read")}})
	want := "model call failed: turn 1: tool calls written as text: cannot read"
	if err == nil || err.Error() != want || !errors.Is(err, agent.ErrModel) {
		t.Fatalf("got %v, want %s", err, want)
	}
}
