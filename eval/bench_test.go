package eval

import (
	"context"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire/wiretest"
	"github.com/tapeloop/tapeloop/scenario"
)

// BenchmarkTrials200x3 runs 200 trials of 3 model calls each against a
// local OpenAI-compatible server that takes 50 ms per call, 32 at a time,
// on the real clock. It reports the wall time against the ideal
// (200·3·50 ms / 32 = 937.5 ms) as x-ideal, and the process CPU time (the
// harness, the provider's HTTP client and the in-process server together)
// per model call as cpu-µs/call, with the provider streaming and not.
//
//	go test ./eval -run '^$' -bench Trials200x3 -benchtime 3x
func BenchmarkTrials200x3(b *testing.B) {
	for _, noStream := range []bool{false, true} {
		name := "stream"
		if noStream {
			name = "nostream"
		}
		b.Run(name, func(b *testing.B) { benchmarkTrials200x3(b, noStream) })
	}
}

func benchmarkTrials200x3(b *testing.B, noStream bool) {
	const (
		trials   = 200
		calls    = 3
		latency  = 50 * time.Millisecond
		parallel = 32
	)
	ideal := time.Duration(trials*calls) * latency / parallel
	srv := wiretest.New(&wiretest.Options{Latency: latency})
	defer srv.Close()
	s, err := scenario.Parse([]byte(appendScenario), "append.yaml", "files/append")
	if err != nil {
		b.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: parallel}}
	open := func(ctx context.Context, name string) (llm.Model, error) {
		return llm.Open(ctx, name, &llm.OpenOptions{BaseURL: srv.URL, APIKey: "k", HTTPClient: client, NoStream: noStream})
	}
	var wall, cpu time.Duration
	for b.Loop() {
		before := cpuTime()
		start := time.Now()
		r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
			Models: []string{"openai-compatible/steps-3"}, Open: open, Trials: trials, Parallel: parallel, Clock: clock.Real{},
		})
		wall += time.Since(start)
		cpu += cpuTime() - before
		if err != nil {
			b.Fatal(err)
		}
		if m := r.Models[0]; m.Passed != trials || m.ModelCalls != trials*calls {
			b.Fatalf("%d of %d passed with %d model calls; want all, %d calls", m.Passed, m.Trials, m.ModelCalls, trials*calls)
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(wall)/n/float64(time.Millisecond), "wall-ms")
	b.ReportMetric(float64(ideal)/float64(time.Millisecond), "ideal-ms")
	b.ReportMetric(float64(wall)/n/float64(ideal), "x-ideal")
	b.ReportMetric(float64(cpu)/n/float64(time.Microsecond)/float64(trials*calls), "cpu-µs/call")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTrialsInProcess runs the same 200 trials of 3 model calls with an
// in-process scripted model that answers at once: no HTTP, no provider, no
// server, so cpu-µs/call is the harness's own CPU time per model call (the
// eval runner, the harness run with its workspace and diffs, the agent loop
// and the tools).
func BenchmarkTrialsInProcess(b *testing.B) {
	const trials, calls, parallel = 200, 3, 32
	s, err := scenario.Parse([]byte(appendScenario), "append.yaml", "files/append")
	if err != nil {
		b.Fatal(err)
	}
	model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		tools := 0
		for _, m := range req.Messages {
			if m.Role == llm.RoleTool {
				tools++
			}
		}
		switch tools {
		case 0:
			return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path": "notes.txt"}`})}, nil
		case 1:
			return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_2", Name: "write_file", Arguments: `{"path": "notes.txt", "content": "hello\nworld\n"}`})}, nil
		}
		return &llm.Response{Message: llm.AssistantMessage("done"), Usage: llm.Usage{InputTokens: 50, OutputTokens: 10}}, nil
	})
	var cpu time.Duration
	for b.Loop() {
		before := cpuTime()
		r, err := Run(context.Background(), []*scenario.Scenario{s}, &Options{
			Models: []string{"test/m"}, Open: func(context.Context, string) (llm.Model, error) { return model, nil },
			Trials: trials, Parallel: parallel, Clock: clock.Real{},
		})
		cpu += cpuTime() - before
		if err != nil {
			b.Fatal(err)
		}
		if m := r.Models[0]; m.Passed != trials || m.ModelCalls != trials*calls {
			b.Fatalf("%d of %d passed with %d model calls", m.Passed, m.Trials, m.ModelCalls)
		}
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/float64(time.Microsecond)/float64(trials*calls), "cpu-µs/call")
}
