package benchrow

import (
	"context"
	"testing"

	"github.com/tapeloop/tapeloop/bench/benchagent"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
)

// The rows package bench and module bench/vcr both measure, each a
// benchmark body recorded into the table: the same code in both, so their
// tables measure the same thing.

// Native measures NativeRow: benchagent's workload as a native scenario,
// harness.Verify each run.
func (t *Table) Native(b *testing.B, order int) {
	ctx := context.Background()
	path, err := benchagent.PrepareNative(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	before := Read()
	b.ResetTimer()
	for b.Loop() {
		if v := harness.Verify(ctx, path, nil); !v.Passed() {
			b.Fatal(v.Err, v.Failures)
		}
	}
	t.Record(b, order, NativeRow, benchagent.Turns, before)
}

// AgentAlone measures AgentRow: the agent with an HTTP client that serves
// its captured answers and does nothing else (benchagent.CannedClient), in
// a fresh seeded directory each run.
func (t *Table) AgentAlone(b *testing.B, order int) {
	ctx := context.Background()
	client, err := benchagent.CannedClient(ctx)
	if err != nil {
		b.Fatal(err)
	}
	before := Read()
	b.ResetTimer()
	for b.Loop() {
		if _, err := benchagent.RunSeeded(ctx, "http://model.test/v1", client); err != nil {
			b.Fatal(err)
		}
	}
	t.Record(b, order, AgentRow, benchagent.Turns, before)
}

// Bridge measures BridgeRow: the agent replayed by harness.VerifyScenario
// through bridge.Runner (the
// scenario loaded each run), as a bridged test does.
func (t *Table) Bridge(b *testing.B, order int) {
	ctx := context.Background()
	path, err := benchagent.Prepare(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	agents := benchagent.Agents()
	before := Read()
	b.ResetTimer()
	for b.Loop() {
		s, err := scenario.Load(path)
		if err != nil {
			b.Fatal(err)
		}
		if v := harness.VerifyScenario(ctx, s, &harness.VerifyOptions{Agents: agents}); !v.Passed() {
			b.Fatal(v.Err, v.Failures)
		}
	}
	t.Record(b, order, BridgeRow, benchagent.Turns, before)
}
