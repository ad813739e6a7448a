package notes_test

import (
	"context"
	"flag"
	"path/filepath"
	"testing"

	"github.com/openai/openai-go/v3/option"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/examples/notes"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

var record = flag.Bool("record", false, "record the scenarios' tapes against the scripted model")

// runNotes runs the notes agent on a bridged run: its openai-go client
// pointed at the bridge, its folder the run's workspace, its request the
// scenario's input.
func runNotes(ctx context.Context, r *bridge.Run, stream bool) error {
	a := notes.New(r.Dir,
		option.WithBaseURL(r.OpenAIBaseURL),
		option.WithHTTPClient(r.HTTPClient),
		option.WithAPIKey(r.APIKey),
		option.WithMaxRetries(0))
	a.Stream = stream
	answer, err := a.Run(ctx, r.Input[len(r.Input)-1].Content)
	if err != nil {
		return err
	}
	r.Final(answer)
	return nil
}

// TestScenarios replays scenarios/ with the agent streaming its answers:
// one subtest per scenario, goldens and expectations as for a native
// scenario (go test -update rewrites the goldens).
func TestScenarios(t *testing.T) {
	bridge.Test(t, "scenarios", func(t *testing.T, r *bridge.Run) error {
		return runNotes(t.Context(), r, true)
	}, nil)
}

// TestScenariosWhole replays the same tapes with whole (not streamed)
// answers: the same goldens hold.
func TestScenariosWhole(t *testing.T) {
	bridge.Test(t, "scenarios", func(t *testing.T, r *bridge.Run) error {
		return runNotes(t.Context(), r, false)
	}, &bridge.TestOptions{Update: false})
}

// scripts stand in for a live model when the tapes are recorded (go test
// -record): the model's answers, scenario by scenario.
var scripts = map[string][]any{
	"add-item": {
		call("call_1", "read_note", `{"name":"shopping"}`),
		call("call_2", "write_note", `{"name":"shopping","text":"milk\neggs\n"}`),
		answer("Added eggs to your shopping note: milk, eggs."),
	},
	"missing-note": {
		call("call_1", "read_note", `{"name":"todo"}`),
		answer("You have no note called todo."),
	},
	"model-down": {
		&llm.ProviderError{Kind: llm.ErrOverloaded, StatusCode: 503, Message: "The server is overloaded; try again later."},
	},
}

// TestRecord records each scenario's tape in place, with the scripted
// model answering through the bridge as a live one would (bridge.Record).
func TestRecord(t *testing.T) {
	if !*record {
		t.Skip("go test -record records the tapes")
	}
	for name, steps := range scripts {
		path := filepath.Join("scenarios", name+".yaml")
		s, err := scenario.Load(path, "")
		if err != nil {
			t.Fatal(err)
		}
		agent := func(ctx context.Context, r *bridge.Run) error { return runNotes(ctx, r, true) }
		_, tape, err := bridge.Record(t.Context(), s, agent, scripted(steps), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := bridge.WriteRecording(path, tape); err != nil {
			t.Fatal(err)
		}
	}
}

func scripted(steps []any) llm.Model {
	n := 0
	return llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		step := steps[min(n, len(steps)-1)]
		n++
		if err, ok := step.(error); ok {
			return nil, err
		}
		return step.(*llm.Response), nil
	})
}

func call(id, name, args string) *llm.Response {
	return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: id, Name: name, Arguments: args}),
		FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 210, OutputTokens: 18}}
}

func answer(text string) *llm.Response {
	return &llm.Response{Message: llm.AssistantMessage(text), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 260, OutputTokens: 14}}
}
