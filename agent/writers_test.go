package agent_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// TestWritersRunAloneInSourceOrder: in a parallel batch [read, write, read,
// read] over shared state, the first read never sees the write and the later
// reads always do, however the goroutines are scheduled, while the two reads
// after the write still run concurrently (each waits for the other to start).
func TestWritersRunAloneInSourceOrder(t *testing.T) {
	for i := range 200 {
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		var mu sync.Mutex
		state := "old"
		var rngMu sync.Mutex
		jitter := func() {
			rngMu.Lock()
			n := rng.IntN(20)
			rngMu.Unlock()
			for range n {
				runtime.Gosched()
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // only a guard against a hang
		started := map[string]chan struct{}{"r3": make(chan struct{}), "r4": make(chan struct{})}
		read := tools.Func(tools.Spec{Name: "read", Safety: tools.Safety{SideEffects: tools.SideEffectRead, Pure: true, Idempotent: true}},
			func(ctx context.Context, call tools.Call) (*tools.Result, error) {
				jitter()
				if ch, ok := started[call.ID]; ok {
					close(ch)
					other := map[string]string{"r3": "r4", "r4": "r3"}[call.ID]
					select {
					case <-started[other]:
					case <-ctx.Done():
						return nil, errors.New("deadlock: the reads after the write did not run concurrently")
					}
				}
				mu.Lock()
				defer mu.Unlock()
				return tools.Success(state), nil
			})
		write := tools.Func(tools.Spec{Name: "write", Safety: tools.Safety{SideEffects: tools.SideEffectWrite}},
			func(ctx context.Context, call tools.Call) (*tools.Result, error) {
				jitter()
				mu.Lock()
				defer mu.Unlock()
				state = "new"
				return tools.Success("written"), nil
			})
		model := script(respond(call("r1", "read", `{}`), call("w2", "write", `{}`), call("r3", "read", `{}`), call("r4", "read", `{}`)), final("done"))
		run, err := agent.Run(ctx, model, newRegistry(t, read, write), []llm.Message{llm.UserMessage("go")}, &agent.Options{Clock: virtual()})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		got := toolMessages(run.Messages)
		want := []string{"r1=old", "w2=written", "r3=new", "r4=new"}
		if len(got) != len(want) {
			t.Fatalf("run %d: tool messages %q", i, got)
		}
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("run %d: tool messages %q, want %q", i, got, want)
			}
		}
	}
}
