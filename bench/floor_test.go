package bench

import "testing"

// BenchmarkAgentAlone is the bridged workload's agent (benchagent) with no
// harness at all: its HTTP client answers each call with the bytes the
// bridge once served it, and does nothing else; the run seeds a fresh
// temporary directory and checks the answer and the file as the go-vcr row
// does. The agent's own SDK and tool work is inside both the bridge and
// go-vcr rows; this row is that work alone.
func BenchmarkAgentAlone(b *testing.B) { table.AgentAlone(b, 9) }
