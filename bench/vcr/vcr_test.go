package vcr

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3/option"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"

	"github.com/tapeloop/tapeloop/bench/benchagent"
	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/scenario"
)

var (
	mu   sync.Mutex
	rows = map[string]float64{} // row -> µs/turn of the last run
)

const (
	vcrRow    = "go-vcr: openai-go agent replayed from a cassette"
	bridgeRow = "bridge: openai-go agent replayed by bridge.Verify"
)

// baseURL is where the agent's model is, recording and replaying.
const baseURL = "http://model.test/v1"

func note(b *testing.B, name string) {
	us := float64(b.Elapsed().Nanoseconds()) / 1e3 / float64(b.N*benchagent.Turns)
	b.ReportMetric(us, "µs/turn")
	mu.Lock()
	defer mu.Unlock()
	rows[name] = us
}

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
	if _, err := runWorkload(context.Background(), baseURL, rec.GetDefaultClient(), tb.TempDir()); err != nil {
		tb.Fatal(err)
	}
	if err := rec.Stop(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// runWorkload runs the agent in a fresh copy of the seed workspace.
func runWorkload(ctx context.Context, baseURL string, client *http.Client, dir string) (string, error) {
	if err := os.WriteFile(filepath.Join(dir, "log.txt"), []byte("start\n"), 0o644); err != nil {
		return "", err
	}
	return benchagent.Run(ctx, benchagent.Client(baseURL, option.WithHTTPClient(client)), dir)
}

// replayCassette replays the cassette once, as a go-vcr test does: load it,
// run the agent against it, check the answer and the file.
func replayCassette(tb testing.TB, path string) {
	rec, err := recorder.New(path, recorder.WithMode(recorder.ModeReplayOnly), recorder.WithSkipRequestLatency(true))
	if err != nil {
		tb.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "vcr-")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.RemoveAll(dir)
	final, err := runWorkload(context.Background(), baseURL, rec.GetDefaultClient(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "log.txt"))
	if final != "Done." || len(log) != len("start\n")+10*len("line 1\n")+1 {
		tb.Fatalf("final %q, log.txt %q", final, log)
	}
}

// TestBothReplay checks that both rows replay the workload correctly.
func TestBothReplay(t *testing.T) {
	replayCassette(t, recordCassette(t))
	path, err := benchagent.Prepare(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if v := bridge.Verify(t.Context(), s, benchagent.Agent, nil); !v.Passed() {
		t.Fatal(v.Err, v.Failures)
	}
}

// BenchmarkGoVCR replays the agent from a go-vcr cassette.
func BenchmarkGoVCR(b *testing.B) {
	path := recordCassette(b)
	b.ResetTimer()
	for b.Loop() {
		replayCassette(b, path)
	}
	note(b, vcrRow)
}

// BenchmarkBridge replays the same agent through the bridge (as package
// bench's BenchmarkBridge does).
func BenchmarkBridge(b *testing.B) {
	ctx := context.Background()
	path, err := benchagent.Prepare(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
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
	note(b, bridgeRow)
}

func TestMain(m *testing.M) {
	code := m.Run()
	mu.Lock()
	v, vok := rows[vcrRow]
	br, bok := rows[bridgeRow]
	mu.Unlock()
	if vok && bok {
		fmt.Printf("\n| row | µs/turn |\n|---|---|\n| %s | %.1f |\n| %s | %.1f |\n\ngo-vcr vs bridge: the bridge is %.2f× faster per turn (target ≥ 4×)\n", vcrRow, v, bridgeRow, br, v/br)
	}
	os.Exit(code)
}
