package bench

import (
	"context"
	"testing"

	"github.com/tapeloop/tapeloop/bench/benchagent"
)

// turns is the reference workload's model turns: ten turns of a read and an
// append, then the final text.
const turns = benchagent.Turns

// scenarioText is the reference workload as a tapeloop scenario.
func scenarioText() string { return benchagent.NativeText() }

// writeScenario writes the reference scenario and its golden (produced by
// the harness) into a temporary folder and returns the scenario's path.
func writeScenario(b *testing.B) string {
	b.Helper()
	path, err := benchagent.PrepareNative(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	return path
}
