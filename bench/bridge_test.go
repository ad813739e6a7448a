package bench

import "testing"

// BenchmarkBridge is the reference workload done by an agent tapeloop did
// not write (benchagent: a loop on openai-go, its tools on a directory)
// replayed through the bridge: load, the agent's HTTP calls answered in
// process from the tape (requests decoded and matched), the workspace
// snapshotted at each call, golden encode and compare, expectations.
func BenchmarkBridge(b *testing.B) { table.Bridge(b, 10) }
