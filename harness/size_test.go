package harness

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// sizeHeader starts the scenarios of this file: an echo tool, room for many
// turns.
const sizeHeader = "format: tapeloop/v1\nsetup:\n  tools: [echo]\n  loop: {max_iterations: 10000}\ninput:\n  - {role: user, content: go}\ntape:\n"

// manyCalls is a scenario whose one response holds n calls of an echo tool.
func manyCalls(n int) []byte {
	var b strings.Builder
	b.WriteString(sizeHeader + "  - response:\n      tool_calls:\n")
	for i := range n {
		fmt.Fprintf(&b, "        - {id: c%d, name: echo, arguments: {text: t%d}}\n", i, i)
	}
	b.WriteString("  - response: {content: done}\n")
	return []byte(b.String())
}

// manyResponses is a scenario of r responses holding tape.MaxCallsPerResponse
// calls each: allowed input, as dense as a tape gets.
func manyResponses(r int) []byte {
	var b strings.Builder
	b.WriteString(sizeHeader)
	for i := range r * tape.MaxCallsPerResponse {
		if i%tape.MaxCallsPerResponse == 0 {
			b.WriteString("  - response:\n      tool_calls:\n")
		}
		fmt.Fprintf(&b, "        - {id: c%d, name: echo, arguments: {text: t%d}}\n", i, i)
	}
	b.WriteString("  - response: {content: done}\n")
	return []byte(b.String())
}

// textCalls is a scenario whose one response writes n hermes calls in its
// content (extracted: text_calls is on by default).
func textCalls(n int) []byte {
	var b strings.Builder
	b.WriteString(sizeHeader + "  - response:\n      content: |\n")
	for i := range n {
		fmt.Fprintf(&b, "        <tool_call>{\"name\": \"echo\", \"arguments\": {\"text\": \"t%d\"}}</tool_call>\n", i)
	}
	b.WriteString("  - response: {content: done}\n")
	return []byte(b.String())
}

// peakHeap runs f and returns the most heap memory held by objects
// (runtime/metrics /memory/classes/heap/objects:bytes, live and not yet
// swept) seen while it ran, sampled every 200µs and at the end, above what
// was held before. It is a measurement for benchmarks: a sample can miss a
// short peak.
func peakHeap(f func()) uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	runtime.GC()
	base := read()
	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			peak = max(peak, read())
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
	f()
	close(stop)
	wg.Wait()
	peak = max(peak, read())
	if peak < base {
		return 0
	}
	return peak - base
}

// BenchmarkSize loads and replays scenarios that are large for their size,
// and encodes the golden, as `evalrun replay` does. B/op is what that
// allocates in all; peak-heap-B the most heap held at once (sampled), and
// peak/input that as a multiple of the file's size, the figure issue 16 asks
// to keep at or under 20. Cases over a limit measure the refusal (refused=1).
//
//	go test ./harness -run '^$' -bench Size -benchmem -benchtime 3x
func BenchmarkSize(b *testing.B) {
	cases := []struct {
		name string
		data []byte
	}{
		{"calls=100", manyCalls(100)},
		{fmt.Sprintf("calls=%d", tape.MaxCallsPerResponse), manyCalls(tape.MaxCallsPerResponse)},
		{"calls=100000", manyCalls(100000)},
		{"responses=20x1000", manyResponses(20)},
		{"textcalls=1000", textCalls(1000)},
		{"textcalls=100000", textCalls(100000)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			var peak uint64
			refused := 0.0
			for b.Loop() {
				peak = max(peak, peakHeap(func() {
					s, err := scenario.Parse(c.data, "size.yaml", "size")
					if err != nil {
						refused = 1
						return
					}
					o, err := Run(context.Background(), s, nil)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := o.Golden(redact.Default()); err != nil {
						b.Fatal(err)
					}
				}))
			}
			b.ReportMetric(float64(peak), "peak-heap-B")
			b.ReportMetric(float64(peak)/float64(len(c.data)), "peak/input")
			b.ReportMetric(refused, "refused")
		})
	}
}

// TestTooManyCallsInOneResponseIsRefused checks a response with more calls
// than tape.MaxCallsPerResponse is refused when the scenario loads, at the
// line of its tool_calls, instead of taking a gigabyte (100k calls in 4.3 MB
// did) to replay; one at the limit still loads.
func TestTooManyCallsInOneResponseIsRefused(t *testing.T) {
	if _, err := scenario.Parse(manyCalls(tape.MaxCallsPerResponse), "many.yaml", "many"); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	n := tape.MaxCallsPerResponse + 1 // 100k calls, the case, is BenchmarkSize's
	_, err := scenario.Parse(manyCalls(n), "many.yaml", "many")
	want := fmt.Sprintf("many.yaml:10: tape[0].response.tool_calls: %d calls, more than the %d one response may hold", n, tape.MaxCallsPerResponse)
	if err == nil || err.Error() != want {
		t.Errorf("%d calls:\n got %v\nwant %s", n, err, want)
	}
}

// TestTooManyTextCallsEndTheRun checks that a response writing more calls in
// its text than textcalls.MaxCallsPerMessage ends the replay with
// model_error and the limit's message, running none of them; one at the
// limit runs them all.
func TestTooManyTextCallsEndTheRun(t *testing.T) {
	for _, n := range []int{tape.MaxCallsPerResponse, tape.MaxCallsPerResponse + 1} {
		s, err := scenario.Parse(textCalls(n), "text.yaml", "text")
		if err != nil {
			t.Fatal(err)
		}
		o, err := Run(context.Background(), s, nil)
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		for _, turn := range o.Turns {
			calls += len(turn.Calls)
		}
		if n == tape.MaxCallsPerResponse {
			if o.Termination != "final_text" || calls != n {
				t.Errorf("%d calls: ended %s after %d calls (%s); want final_text after %d", n, o.Termination, calls, o.Error, n)
			}
			continue
		}
		want := fmt.Sprintf("model call failed: turn 1: too many tool calls: the text holds more than %d calls (hermes), more than one message may hold", tape.MaxCallsPerResponse)
		if o.Termination != "model_error" || o.Error != want || calls != 0 {
			t.Errorf("%d calls: ended %s after %d calls: %s\nwant model_error after none: %s", n, o.Termination, calls, o.Error, want)
		}
	}
}
