package bench

import (
	"context"
	"testing"

	"github.com/tapeloop/tapeloop/bench/benchagent"
	"github.com/tapeloop/tapeloop/bench/benchrow"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// BenchmarkBridge is the reference workload done by an agent tapeloop did
// not write (benchagent: a loop on openai-go, its tools on a directory)
// replayed through the bridge: load, the agent's HTTP calls answered in
// process from the tape (requests decoded and matched), the workspace
// snapshotted at each call, golden encode and compare, expectations.
func BenchmarkBridge(b *testing.B) { table.Bridge(b, 10) }

// BenchmarkBridgeDecode is the bridge's request decoding alone: the
// workload's eleven request bodies, as the agent sent them, decoded in
// order by one wire.Decoder (a fresh one each run), as the bridge's handler
// decodes them.
func BenchmarkBridgeDecode(b *testing.B) {
	calls, err := benchagent.Capture(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	before := benchrow.Read()
	b.ResetTimer()
	for b.Loop() {
		var d wire.Decoder
		for _, c := range calls {
			if _, err := d.Decode(c.Path, c.Request); err != nil {
				b.Fatal(err)
			}
		}
	}
	record(b, 11, "bridge phase: decode the requests (wire.Decoder)", before)
}
