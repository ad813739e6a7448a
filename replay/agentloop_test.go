package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/repair"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/tape"
	"github.com/tapeloop/tapeloop/tools"
)

// TestRecordThenReplayThroughTheAgentLoop records a run of a scripted model
// through the real agent loop (broken arguments, a repair, a parallel batch, a
// failing call), saves and reloads the tape, replays it through the same loop,
// and requires the same events (times included, on a virtual clock) and the
// same final messages. The replay checks every recorded request on the way.
func TestRecordThenReplayThroughTheAgentLoop(t *testing.T) {
	responses := []*llm.Response{
		{Message: llm.AssistantMessage("Saving both notes.",
			llm.ToolCall{ID: "call_1", Name: "save", Arguments: `{"key": "a", "value": "one",}`},
			llm.ToolCall{ID: "call_2", Name: "lookup", Arguments: `{"key": "missing"}`}),
			FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 20, OutputTokens: 9}},
		{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_3", Name: "lookup", Arguments: `{'key': 'a'}`}), FinishReason: llm.FinishToolCalls},
		{Message: llm.AssistantMessage("Note a says: one."), FinishReason: llm.FinishStop},
	}
	var next int
	scripted := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		r := responses[next]
		next++
		return r, nil
	})

	recorder := replay.NewRecorder(scripted, &replay.RecorderOptions{Redactor: redact.New(nil)})
	recordedEvents, recordedRun := runLoop(t, recorder)

	var file bytes.Buffer
	if err := tape.Encode(&file, recorder.Tape()); err != nil {
		t.Fatal(err)
	}
	tp, err := tape.Decode(&file, "recorded.yaml")
	if err != nil {
		t.Fatal(err)
	}
	model := replay.NewModel(tp, nil)
	replayedEvents, replayedRun := runLoop(t, model)

	if model.Remaining() != 0 {
		t.Errorf("%d tape entries left unused", model.Remaining())
	}
	if !bytes.Equal(recordedEvents, replayedEvents) {
		t.Errorf("events differ:\nrecorded %s\nreplayed %s", recordedEvents, replayedEvents)
	}
	r, _ := json.Marshal(recordedRun.Messages)
	p, _ := json.Marshal(replayedRun.Messages)
	if !bytes.Equal(r, p) {
		t.Errorf("final messages differ:\nrecorded %s\nreplayed %s", r, p)
	}
	if replayedRun.Termination.Reason != agent.ReasonFinalText || replayedRun.FinalText() != "Note a says: one." {
		t.Errorf("replayed run ended with %s: %q", replayedRun.Termination.Reason, replayedRun.FinalText())
	}
}

// runLoop runs the agent loop over model with fresh tools and a virtual clock
// and returns its events as JSON and the run.
func runLoop(t *testing.T, model llm.Model) ([]byte, *agent.RunResult) {
	t.Helper()
	var mu sync.Mutex
	notes := map[string]string{}
	type kv struct {
		Key   string `json:"key"`
		Value string `json:"value,omitempty"`
	}
	reg := tools.NewRegistry(&tools.RegistryOptions{Repairer: repair.Cascade{}})
	reg.MustRegister(
		tools.MustNew(tools.Spec{Name: "save", Safety: tools.Safety{SideEffects: tools.SideEffectWrite}},
			func(ctx context.Context, in kv) (*tools.Result, error) {
				mu.Lock()
				defer mu.Unlock()
				notes[in.Key] = in.Value
				return tools.Success("saved " + in.Key), nil
			}),
		tools.MustNew(tools.Spec{Name: "lookup", Safety: tools.Safety{SideEffects: tools.SideEffectRead, Pure: true, Idempotent: true}},
			func(ctx context.Context, in kv) (*tools.Result, error) {
				mu.Lock()
				defer mu.Unlock()
				v, ok := notes[in.Key]
				if !ok {
					return tools.ValidationFailure("no note "+in.Key, "save it first"), nil
				}
				return tools.Success(v), nil
			}),
	)
	var events []agent.Event
	run, err := agent.Run(context.Background(), model, reg, []llm.Message{llm.UserMessage("Save note a, then read it.")},
		&agent.Options{Clock: clock.NewVirtual(time.Time{}), Observer: func(e agent.Event) { events = append(events, e) }})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(events)
	if err != nil {
		t.Fatal(err)
	}
	return b, run
}
