package agent_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

const benchTurns = 10

// benchSetup returns a registry of two trivial tools with a small schema and
// the responses of a run: benchTurns turns of two calls, then a final text.
func benchSetup(b *testing.B) (*tools.Registry, []*llm.Response) {
	type args struct {
		Path  string `json:"path"`
		Limit int    `json:"limit,omitempty"`
	}
	reg := tools.NewRegistry(nil)
	for _, name := range []string{"read", "stat"} {
		reg.MustRegister(tools.MustNew(tools.Spec{Name: name}, func(_ context.Context, in args) (*tools.Result, error) {
			return tools.Success(in.Path), nil
		}))
	}
	var resps []*llm.Response
	for i := range benchTurns {
		resps = append(resps, &llm.Response{Message: llm.AssistantMessage("",
			llm.ToolCall{ID: fmt.Sprintf("r%d", i), Name: "read", Arguments: `{"path":"a.txt","limit":10}`},
			llm.ToolCall{ID: fmt.Sprintf("s%d", i), Name: "stat", Arguments: `{"path":"b.txt"}`},
		)})
	}
	resps = append(resps, &llm.Response{Message: llm.AssistantMessage("done")})
	return reg, resps
}

// replayModel serves the responses in order, starting over at each run.
type replayModel struct {
	resps []*llm.Response
	next  int
}

func (m *replayModel) Generate(_ context.Context, _ *llm.Request) (*llm.Response, error) {
	r := m.resps[m.next]
	m.next++
	return r, nil
}

func BenchmarkLoop(b *testing.B) { benchLoop(b, "") }

// BenchmarkLoopSequential is BenchmarkLoop with sequential batches: the
// loop's own bookkeeping (events, records, hooks, clock forks) without the cost
// of handing calls to goroutines.
func BenchmarkLoopSequential(b *testing.B) { benchLoop(b, tools.ExecutionSequential) }

func benchLoop(b *testing.B, execution tools.ExecutionMode) {
	reg, resps := benchSetup(b)
	input := []llm.Message{llm.UserMessage("go")}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		model := &replayModel{resps: resps}
		run, err := agent.Run(ctx, model, reg, input, &agent.Options{Clock: clock.NewVirtual(clock.Epoch), Execution: execution})
		if err != nil || len(run.Turns) != benchTurns+1 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchTurns), "ns/turn")
}

// BenchmarkMinimalLoop is the same work done by the least loop that could do
// it: call the model, execute each call through the registry, append the tool
// messages, repeat.
func BenchmarkMinimalLoop(b *testing.B) {
	reg, resps := benchSetup(b)
	input := []llm.Message{llm.UserMessage("go")}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		model := &replayModel{resps: resps}
		msgs := append([]llm.Message(nil), input...)
		turns := 0
		for {
			resp, err := model.Generate(ctx, &llm.Request{Messages: msgs, Tools: reg.Definitions()})
			if err != nil {
				b.Fatal(err)
			}
			turns++
			msgs = append(msgs, resp.Message)
			if len(resp.Message.ToolCalls) == 0 {
				break
			}
			for _, c := range resp.Message.ToolCalls {
				ex := reg.Execute(ctx, c)
				msgs = append(msgs, llm.ToolMessage(c.ID, c.Name, ex.Result.Content))
			}
		}
		if turns != benchTurns+1 {
			b.Fatal(turns)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchTurns), "ns/turn")
}
