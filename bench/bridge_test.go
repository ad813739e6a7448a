package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tapeloop/tapeloop/bench/benchagent"
	"github.com/tapeloop/tapeloop/bench/benchrow"
	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm/wire"
	"github.com/tapeloop/tapeloop/scenario"
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

// benchBridged measures agent, named name in the scenario's setup.agent,
// replaying benchagent's workload through bridge.Runner: the workload
// recorded once against benchagent.Script, its golden written, then per
// run the scenario loaded, the agent's calls answered in process from the
// tape (decoded and matched) and the golden compared. It records the
// figures as the table's row order, row.
func benchBridged(b *testing.B, name string, agent bridge.Agent, order int, row string) {
	ctx := context.Background()
	sdir := filepath.Join(b.TempDir(), "scenarios")
	if err := os.MkdirAll(sdir, 0o755); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(sdir, "ten-turns.yaml")
	if err := os.WriteFile(path, []byte(fmt.Sprintf(bridgedScenario, name)), 0o644); err != nil {
		b.Fatal(err)
	}
	load := func() *scenario.Scenario {
		s, err := scenario.Load(path, "")
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	_, tape, err := bridge.Record(ctx, load(), agent, benchagent.Script(), nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := bridge.WriteRecording(path, tape); err != nil {
		b.Fatal(err)
	}
	agents := map[string]harness.Runner{name: bridge.Runner(agent, nil)}
	if v := harness.VerifyScenario(ctx, load(), &harness.VerifyOptions{Update: true, Agents: agents}); !v.Passed() {
		b.Fatal(v.Err, v.Failures)
	}
	before := benchrow.Read()
	b.ResetTimer()
	for b.Loop() {
		if v := harness.VerifyScenario(ctx, load(), &harness.VerifyOptions{Agents: agents}); !v.Passed() {
			b.Fatal(v.Err, v.Failures)
		}
	}
	table.Record(b, order, row, benchagent.Turns, before)
}

// bridgedScenario is benchagent's bridged scenario, its agent's name to be
// filled in.
const bridgedScenario = `format: tapeloop/v1
setup:
  agent: {go: %s}
  workspace:
    files: {log.txt: "start\n"}
input:
  - {role: user, content: "Append ten lines."}
tape: []
expect:
  termination: final_text
  iterations: 11
`
