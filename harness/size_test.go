package harness

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/replay"
)

// manyCalls is a scenario whose one response holds n calls of an echo tool.
func manyCalls(n int) []byte {
	var b strings.Builder
	b.WriteString("format: tapeloop/v1\nsetup:\n  tools: [echo]\ninput:\n  - {role: user, content: go}\ntape:\n  - response:\n      tool_calls:\n")
	for i := range n {
		fmt.Fprintf(&b, "        - {id: c%d, name: echo, arguments: {text: t%d}}\n", i, i)
	}
	b.WriteString("  - response: {content: done}\n")
	return []byte(b.String())
}

// BenchmarkManyCalls loads and replays a scenario with n calls in one
// response; B/op against the file's size (SetBytes) is the memory multiple.
// 100k calls are over replay.MaxCallsPerResponse: that case measures the
// refusal.
func BenchmarkManyCalls(b *testing.B) {
	for _, n := range []int{100, replay.MaxCallsPerResponse, 100000} {
		data := manyCalls(n)
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				s, err := Parse(data, "many.yaml", "many")
				if err != nil {
					b.ReportMetric(0, "refused")
					continue
				}
				if _, err := s.Run(context.Background(), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestTooManyCallsInOneResponseIsRefused checks a response with more calls
// than replay.MaxCallsPerResponse is refused when the scenario loads, at the
// line of its tool_calls, instead of taking a gigabyte (100k calls in 4.3 MB
// did) to replay; one at the limit still loads.
func TestTooManyCallsInOneResponseIsRefused(t *testing.T) {
	if _, err := Parse(manyCalls(replay.MaxCallsPerResponse), "many.yaml", "many"); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	for _, n := range []int{replay.MaxCallsPerResponse + 1, 100000} {
		_, err := Parse(manyCalls(n), "many.yaml", "many")
		want := fmt.Sprintf("many.yaml:9: tape[0].response.tool_calls: %d calls, more than the %d one response may hold", n, replay.MaxCallsPerResponse)
		if err == nil || err.Error() != want {
			t.Errorf("%d calls:\n got %v\nwant %s", n, err, want)
		}
	}
}
