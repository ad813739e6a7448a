package agent_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// heapInUse is the heap held by live objects after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestRunKeepsOnlyItsResult checks what a finished run keeps alive: its
// records, results and messages, not the working state of each batch (the
// pending calls and their preparations). A response of 1000 calls kept
// ~1000 bytes a call alive, because each record's attempts slice pointed into
// the batch's array of pending calls; what a call needs is ~500.
func TestRunKeepsOnlyItsResult(t *testing.T) {
	const calls = 1000
	reg := tools.NewRegistry(nil)
	reg.MustRegister(tools.MustNew(tools.Spec{Name: "echo"}, func(_ context.Context, in struct {
		Text string `json:"text"`
	}) (*tools.Result, error) {
		return tools.Success(in.Text), nil
	}))
	batch := make([]llm.ToolCall, calls)
	for i := range batch {
		batch[i] = llm.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "echo", Arguments: fmt.Sprintf(`{"text":"t%d"}`, i)}
	}
	model := &replayModel{resps: []*llm.Response{
		{Message: llm.AssistantMessage("", batch...), FinishReason: llm.FinishToolCalls},
		{Message: llm.AssistantMessage("done")},
	}}
	input := []llm.Message{llm.UserMessage("go")}
	before := heapInUse()
	run, err := agent.Run(context.Background(), model, reg, input, &agent.Options{Clock: clock.NewVirtual(clock.Epoch)})
	if err != nil {
		t.Fatal(err)
	}
	kept := int64(heapInUse()) - int64(before)
	runtime.KeepAlive(run)
	if got := len(run.Turns[0].Calls); got != calls {
		t.Fatalf("the run made %d calls, want %d", got, calls)
	}
	const limit = 600
	if perCall := kept / calls; perCall > limit {
		t.Errorf("a finished run keeps %d bytes a call alive, more than %d: %d bytes for %d calls", perCall, limit, kept, calls)
	}
}
