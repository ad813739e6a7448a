package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// TestDeterministicEvents runs a batch of five concurrent tools 500 times with
// a different scheduling each time (a seeded random number of yields in every
// tool) and requires byte-identical event streams and conversations, times
// and durations included: on the virtual clock nothing may differ.
func TestDeterministicEvents(t *testing.T) {
	iterations := 500
	if testing.Short() {
		iterations = 50
	}
	var first []byte
	for i := range iterations {
		got := deterministicRun(t, uint64(i))
		if first == nil {
			first = got
			continue
		}
		if !bytes.Equal(got, first) {
			t.Fatalf("iteration %d (seed %d) differs from iteration 0:\n%s\n---\n%s", i, i, got, first)
		}
	}
}

func deterministicRun(t *testing.T, seed uint64) []byte {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, 42))
	jitter := func() int {
		mu.Lock()
		defer mu.Unlock()
		return rng.IntN(20)
	}
	attempts := make([]int, 5)
	var ts []tools.Tool
	for i := range 5 {
		name := fmt.Sprint("t", i)
		ts = append(ts, tools.Func(tools.Spec{Name: name, Safety: tools.Safety{Idempotent: true}}, func(ctx context.Context, _ tools.Call) (*tools.Result, error) {
			c := clock.FromContext(ctx)
			for range jitter() {
				runtime.Gosched()
			}
			tools.ReportProgress(ctx, name+" halfway")
			if err := c.Sleep(ctx, time.Duration(i+1)*7*time.Millisecond); err != nil {
				return nil, err
			}
			for range jitter() {
				runtime.Gosched()
			}
			mu.Lock()
			attempts[i]++
			n := attempts[i]
			mu.Unlock()
			if i == 2 && n == 1 {
				return tools.TransientFailure("flaky"), nil
			}
			return tools.Success(fmt.Sprintf("%s done at %s", name, c.Now().Sub(clock.Epoch))), nil
		}))
	}
	batch := func(turn int) step {
		var calls []llm.ToolCall
		for i := 4; i >= 0; i-- { // source order differs from name order
			calls = append(calls, call(fmt.Sprintf("c%d_%d", turn, i), fmt.Sprint("t", i), `{}`))
		}
		return respond(calls...)
	}
	var events []agent.Event
	model := script(batch(1), batch(2), final("done"))
	run, err := agent.Run(context.Background(), model, newRegistry(t, ts...), []llm.Message{llm.UserMessage("go")}, &agent.Options{
		Clock:    virtual(),
		Retry:    &agent.RetryPolicy{Attempts: 3, Backoff: 5 * time.Millisecond},
		Observer: func(e agent.Event) { events = append(events, e) },
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(struct {
		Events   []agent.Event
		Messages []llm.Message
	}{events, run.Messages})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
