package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkReplaySuite verifies every scenario under ../scenarios per
// iteration, as `go test ./scenarios` does: load, run through the registry and
// loop, record the workspace diffs, encode the golden and compare it. It
// reports scenarios/s and µs/turn (over every model turn of every scenario);
// run with -benchmem for allocations per suite.
func BenchmarkReplaySuite(b *testing.B) {
	const root = "../scenarios"
	paths, err := Discover(root)
	if err != nil || len(paths) == 0 {
		b.Skipf("no scenario files under %s (%v)", root, err)
	}
	ctx := context.Background()
	opts := &VerifyOptions{Root: root}
	turns := 0
	for _, p := range paths {
		v := Verify(ctx, p, opts)
		if v.Err != nil {
			b.Fatalf("%s: %v", p, v.Err)
		}
		if !v.Passed() {
			b.Logf("%s fails (measured anyway): %s", p, v.Failures[0])
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

// BenchmarkReplayTenTurns is the shape of the reference figures in the harness
// issue: one 10-turn scenario (two calls a turn: a pure read and a write with
// a workspace diff), then a final answer, verified end to end per iteration —
// load, run, diff, golden encode and compare.
func BenchmarkReplayTenTurns(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "ten-turns.yaml")
	var tape strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&tape, `  - response:
      content: "Turn %[1]d: reading and appending."
      tool_calls:
        - {id: r%[1]d, name: read_file, arguments: '{"path": "log.txt"}'}
        - {id: w%[1]d, name: append_file, arguments: '{"path": "log.txt", "content": "line %[1]d\n"}'}
`, i)
	}
	scenario := "format: tapeloop/v1\nsetup:\n  workspace:\n    files: {log.txt: \"start\\n\"}\n  tools: [read_file, append_file]\ninput:\n  - {role: user, content: \"Append ten lines.\"}\ntape:\n" +
		tape.String() + "  - response: {content: Done.}\n"
	if err := os.WriteFile(path, []byte(scenario), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if v := Verify(ctx, path, &VerifyOptions{Update: true}); v.Err != nil || len(v.Outcome.Turns) != 11 {
		b.Fatalf("setup: %v %v", v.Err, v.Failures)
	}
	b.ReportAllocs()
	for b.Loop() {
		if v := Verify(ctx, path, nil); !v.Passed() {
			b.Fatalf("%v %v", v.Err, v.Failures)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*11), "µs/turn")
}
