package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
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
	benchDecode(b, calls, false, 11, "bridge phase: decode the requests (wire.Decoder)")
}

// BenchmarkDecodeFormats is BenchmarkBridgeDecode for each wire format's
// agent (its requests captured from one bridged replay), by a wire.Decoder
// as the bridge decodes them (sub-benchmark "decoder") and each body
// decoded whole by wire.Decode ("whole"): the difference is what the
// Decoder's reuse of the previous request saves.
func BenchmarkDecodeFormats(b *testing.B) {
	for i, f := range []struct {
		name  string
		agent bridge.Agent
	}{{"openai", benchagent.Agent}, {"responses", responsesAgent}, {"gemini", geminiAgent}, {"bedrock", bedrockAgent}, {"messages", messagesAgent}} {
		var calls []benchagent.Answer
		for _, how := range []string{"decoder", "whole"} {
			b.Run(f.name+"/"+how, func(b *testing.B) {
				if calls == nil {
					calls = captureAnswers(b, f.name, f.agent)
				}
				benchDecode(b, calls, how == "whole", 20+2*i+map[string]int{"decoder": 0, "whole": 1}[how],
					fmt.Sprintf("decode: %s requests, %s", f.name, map[string]string{"decoder": "wire.Decoder", "whole": "each whole (wire.Decode)"}[how]))
			})
		}
	}
}

// benchBridged measures agent, named name in the scenario's setup.agent,
// replaying benchagent's workload through bridge.Runner: the workload
// recorded once against benchagent.Script, its golden written, then per
// run the scenario loaded, the agent's calls answered in process from the
// tape (decoded and matched) and the golden compared. It records the
// figures as the table's row order, row.
func benchBridged(b *testing.B, name string, agent bridge.Agent, order int, row string) {
	ctx := context.Background()
	load, agents := prepareBridged(b, name, agent)
	before := benchrow.Read()
	b.ResetTimer()
	for b.Loop() {
		if v := harness.VerifyScenario(ctx, load(), &harness.VerifyOptions{Agents: agents}); !v.Passed() {
			b.Fatal(v.Err, v.Failures)
		}
	}
	table.Record(b, order, row, benchagent.Turns, before)
}

// prepareBridged writes benchagent's bridged scenario for agent, named
// name, records it against benchagent.Script and writes its golden; it
// returns what loads the scenario and the agents to run it with.
func prepareBridged(b testing.TB, name string, agent bridge.Agent) (load func() *scenario.Scenario, agents map[string]harness.Runner) {
	ctx := context.Background()
	sdir := filepath.Join(b.TempDir(), "scenarios")
	if err := os.MkdirAll(sdir, 0o755); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(sdir, "ten-turns.yaml")
	if err := os.WriteFile(path, []byte(fmt.Sprintf(bridgedScenario, name)), 0o644); err != nil {
		b.Fatal(err)
	}
	load = func() *scenario.Scenario {
		s, err := scenario.Load(path)
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
	agents = map[string]harness.Runner{name: bridge.Runner(agent, nil)}
	if v := harness.VerifyScenario(ctx, load(), &harness.VerifyOptions{Update: true, Agents: agents}); !v.Passed() {
		b.Fatal(v.Err, v.Failures)
	}
	return load, agents
}

// benchAlone measures agent, named name, with no harness, as
// BenchmarkAgentAlone measures benchagent's: its answers captured from one
// bridged replay, then per run the agent in a fresh directory seeded as
// the scenario seeds it, its HTTP client serving those answer bytes in
// order and doing nothing else (benchagent.Canned), its final text and
// the file it leaves checked. The row is the vendor SDK's and the tools'
// own work, which is inside the agent's bridged row: the bridged row minus
// this one is what tapeloop adds. It records the figures as the table's
// row order, row.
func benchAlone(b *testing.B, name string, agent bridge.Agent, order int, row string) {
	ctx := context.Background()
	answers := captureAnswers(b, name, agent)
	client := &http.Client{Transport: benchagent.NewCanned(answers)}
	run := func() {
		dir, err := os.MkdirTemp("", "benchalone-")
		if err != nil {
			b.Fatal(err)
		}
		defer os.RemoveAll(dir)
		log := filepath.Join(dir, "log.txt")
		if err := os.WriteFile(log, []byte(benchagent.Seed), 0o644); err != nil {
			b.Fatal(err)
		}
		r := &bridge.Run{HTTPClient: client, OpenAIBaseURL: bridge.OpenAIBaseURL, GeminiBaseURL: bridge.GeminiBaseURL,
			BedrockBaseURL: bridge.BedrockBaseURL, APIKey: bridge.APIKey, Dir: dir}
		if err := agent(ctx, r); err != nil {
			b.Fatal(err)
		}
		got, err := os.ReadFile(log)
		if want := len(benchagent.Seed) + 10*len("line 1\n") + 1; err != nil || len(got) != want {
			b.Fatalf("log.txt %q (%v), want %d bytes", got, err, want)
		}
	}
	before := benchrow.Read()
	b.ResetTimer()
	for b.Loop() {
		run()
	}
	table.Record(b, order, row, benchagent.Turns, before)
}

// captureAnswers records benchagent's workload with agent, named name,
// replays it once through the bridge and returns the agent's requests and
// the answers it got, in order.
func captureAnswers(b testing.TB, name string, agent bridge.Agent) []benchagent.Answer {
	ctx := context.Background()
	load, _ := prepareBridged(b, name, agent)
	var answers []benchagent.Answer
	capture := func(ctx context.Context, r *bridge.Run) error {
		inner := r.HTTPClient.Transport
		r.HTTPClient = &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
			body, err := io.ReadAll(req.Body)
			if err != nil {
				return nil, err
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
			resp, err := inner.RoundTrip(req)
			if err != nil {
				return nil, err
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return nil, err
			}
			answers = append(answers, benchagent.Answer{URL: req.URL.String(), Path: req.URL.Path, Header: req.Header.Clone(), Request: body, Status: resp.StatusCode,
				ContentType: resp.Header.Get("Content-Type"), Body: got})
			resp.Body = io.NopCloser(bytes.NewReader(got))
			return resp, nil
		})}
		return agent(ctx, r)
	}
	if v := harness.VerifyScenario(ctx, load(), &harness.VerifyOptions{Agents: map[string]harness.Runner{name: bridge.Runner(capture, nil)}}); !v.Passed() {
		b.Fatal(v.Err, v.Failures)
	}
	if len(answers) != benchagent.Turns {
		b.Fatalf("captured %d answers, want %d", len(answers), benchagent.Turns)
	}
	return answers
}

// benchDecode measures the bridge's request decoding alone for calls, an
// agent's requests in order: one wire.Decoder (a fresh one each run)
// decoding them as the bridge's handler does, or, whole, each decoded on
// its own by wire.Decode (nothing reused). It records the figures as the
// table's row order, row.
func benchDecode(b *testing.B, calls []benchagent.Answer, whole bool, order int, row string) {
	before := benchrow.Read()
	b.ResetTimer()
	for b.Loop() {
		var d wire.Decoder
		for _, c := range calls {
			var err error
			if whole {
				_, err = wire.Decode(c.Path, c.Request)
			} else {
				_, err = d.Decode(c.Path, c.Request)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	table.Record(b, order, row, benchagent.Turns, before)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

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
