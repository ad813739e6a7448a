package vcr

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"

	"github.com/tapeloop/tapeloop/bench/benchagent"
	"github.com/tapeloop/tapeloop/bench/benchrow"
	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
)

// table collects the rows TestMain prints.
var table benchrow.Table

// baseURL is where the agent's model is, recording and replaying.
const baseURL = "http://model.test/v1"

// recordCassette records the agent's exchanges with a scripted model (the
// workload's answers, in the Chat Completions format of the bridge's
// handler, in process) into a cassette, and returns its path.
func recordCassette(tb testing.TB) string {
	server := bridge.Client(bridge.Handler(benchagent.Script(), nil)).Transport
	path := filepath.Join(tb.TempDir(), "ten-turns")
	rec, err := recorder.New(path, recorder.WithMode(recorder.ModeRecordOnly), recorder.WithRealTransport(server))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := benchagent.RunSeeded(context.Background(), baseURL, rec.GetDefaultClient()); err != nil {
		tb.Fatal(err)
	}
	if err := rec.Stop(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// replayCassette replays the cassette once, as a go-vcr test does: load it,
// run the agent against it in a fresh directory, check the answer and the
// file.
func replayCassette(tb testing.TB, path string) {
	rec, err := recorder.New(path, recorder.WithMode(recorder.ModeReplayOnly), recorder.WithSkipRequestLatency(true))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := benchagent.RunSeeded(context.Background(), baseURL, rec.GetDefaultClient()); err != nil {
		tb.Fatal(err)
	}
}

// TestRowsReplay checks that the go-vcr, bridge and agent-alone rows each
// run the workload correctly.
func TestRowsReplay(t *testing.T) {
	replayCassette(t, recordCassette(t))
	client, err := benchagent.CannedClient(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := benchagent.RunSeeded(t.Context(), baseURL, client); err != nil {
		t.Fatal(err)
	}
	path, err := benchagent.Prepare(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if v := harness.VerifyScenario(t.Context(), s, &harness.VerifyOptions{Agents: benchagent.Agents()}); !v.Passed() {
		t.Fatal(v.Err, v.Failures)
	}
}

// BenchmarkGoVCR replays the agent from a go-vcr cassette.
func BenchmarkGoVCR(b *testing.B) {
	path := recordCassette(b)
	before := benchrow.Read()
	b.ResetTimer()
	for b.Loop() {
		replayCassette(b, path)
	}
	table.Record(b, 3, benchrow.VCRRow, benchagent.Turns, before)
}

// BenchmarkBridge replays the same agent through the bridge.
func BenchmarkBridge(b *testing.B) { table.Bridge(b, 2) }

// BenchmarkAgentAlone is the agent with no harness: canned answer bytes.
// Each row above minus this one is what its harness adds.
func BenchmarkAgentAlone(b *testing.B) { table.AgentAlone(b, 1) }

// BenchmarkNative is the same workload as a native scenario replayed by
// harness.Verify.
func BenchmarkNative(b *testing.B) { table.Native(b, 0) }

func TestMain(m *testing.M) {
	code := m.Run()
	rows, _ := table.Medians()
	table.Print(os.Stdout)
	benchrow.PrintBridgeTargets(os.Stdout, rows)
	os.Exit(code)
}
