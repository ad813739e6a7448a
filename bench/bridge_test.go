package bench

import (
	"context"
	"testing"

	"github.com/tapeloop/tapeloop/bench/benchagent"
	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/scenario"
)

// bridgedRow names the bridged replay's row; the go-vcr row is measured by
// module bench/vcr, which prints this row too, from the same run.
const bridgedRow = "bridge: openai-go agent replayed by bridge.Verify"

// BenchmarkBridge is the reference workload done by an agent tapeloop did
// not write (benchagent: a loop on openai-go, its tools on a directory)
// replayed through the bridge: load, the agent's HTTP calls answered in
// process from the tape (requests decoded and matched), the workspace
// snapshotted at each call, golden encode and compare, expectations.
func BenchmarkBridge(b *testing.B) {
	ctx := context.Background()
	path, err := benchagent.Prepare(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	a, by := readMem()
	b.ResetTimer()
	for b.Loop() {
		s, err := scenario.Load(path, "")
		if err != nil {
			b.Fatal(err)
		}
		if v := bridge.Verify(ctx, s, benchagent.Agent, nil); !v.Passed() {
			b.Fatal(v.Err, v.Failures)
		}
	}
	record(b, 7, bridgedRow, a, by)
}
