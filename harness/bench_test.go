package harness

import (
	"context"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
)

// BenchmarkReplaySuite verifies every scenario under ../scenarios per
// iteration, as `go test ./scenarios` does: load, run through the registry and
// loop, record the workspace diffs, encode the golden and compare it. It
// reports scenarios/s and µs/turn (over every model turn of every scenario);
// run with -benchmem for allocations per suite.
func BenchmarkReplaySuite(b *testing.B) {
	const root = "../scenarios"
	paths, err := scenario.Discover(root)
	if err != nil || len(paths) == 0 {
		b.Skipf("no scenario files under %s (%v)", root, err)
	}
	ctx := context.Background()
	opts := &VerifyOptions{}
	turns := 0
	for _, p := range paths {
		v := Verify(ctx, p, opts)
		if v.Err != nil {
			b.Fatalf("%s: %v", p, v.Err)
		}
		if !v.Passed() {
			b.Logf("%s fails (measured anyway): %s", p, v.Failures[0].Error())
		}
		turns += len(v.Outcome.Turns)
	}
	iterations := 0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, p := range paths {
			if v := Verify(ctx, p, opts); v.Err != nil {
				b.Fatalf("%s: %v", p, v.Err)
			}
		}
		iterations++
	}
	elapsed := b.Elapsed()
	b.ReportMetric(float64(len(paths)*iterations)/elapsed.Seconds(), "scenarios/s")
	if turns > 0 {
		b.ReportMetric(float64(elapsed.Microseconds())/float64(turns*iterations), "µs/turn")
	}
	b.ReportMetric(float64(len(paths)), "scenarios")
}
