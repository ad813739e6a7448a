package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tapeloop/tapeloop/bench/benchrow"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/anthropic" // registers anthropic
	_ "github.com/tapeloop/tapeloop/llm/openai"    // registers openai
	"github.com/tapeloop/tapeloop/redact"
)

// wireCall is one tool call of the reference workload's tape.
type wireCall struct{ id, name, args string }

// tapeTurns returns the reference workload's model turns (scenarioText's
// tape, arguments in compact JSON) as content and calls.
func tapeTurns() (content []string, calls [][]wireCall) {
	for i := 1; i <= 10; i++ {
		content = append(content, fmt.Sprintf("Turn %d: reading and appending.", i))
		calls = append(calls, []wireCall{
			{fmt.Sprintf("r%d", i), "read_file", `{"path":"log.txt"}`},
			{fmt.Sprintf("w%d", i), "append_file", fmt.Sprintf(`{"path":"log.txt","content":"line %d\n"}`, i)},
		})
	}
	return append(content, "Done."), append(calls, nil)
}

// openAIBodies returns the tape's turns as Chat Completions answers.
func openAIBodies() [][]byte {
	content, calls := tapeTurns()
	var out [][]byte
	for i := range content {
		msg := map[string]any{"role": "assistant", "content": content[i]}
		finish := "stop"
		if len(calls[i]) > 0 {
			var tcs []any
			for _, c := range calls[i] {
				tcs = append(tcs, map[string]any{"id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}})
			}
			msg["tool_calls"] = tcs
			finish = "tool_calls"
		}
		out = append(out, mustJSON(map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", i), "object": "chat.completion", "created": 1760100100, "model": "gpt-4.1-mini",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
		}))
	}
	return out
}

// anthropicBodies returns the tape's turns as Messages API answers.
func anthropicBodies() [][]byte {
	content, calls := tapeTurns()
	var out [][]byte
	for i := range content {
		blocks := []any{map[string]any{"type": "text", "text": content[i]}}
		stop := "end_turn"
		for _, c := range calls[i] {
			blocks = append(blocks, map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": json.RawMessage(c.args)})
			stop = "tool_use"
		}
		out = append(out, mustJSON(map[string]any{
			"id": fmt.Sprintf("msg_%d", i), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
			"content": blocks, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 100, "output_tokens": 20},
		}))
	}
	return out
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

// wireServer answers the n-th request with bodies[n mod len(bodies)]: one
// run of the workload makes exactly len(bodies) requests, in order.
func wireServer(b *testing.B, bodies [][]byte) *httptest.Server {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		body := bodies[(n.Add(1)-1)%int64(len(bodies))]
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkSDK is the run phase with the model answered over HTTP by each
// vendor's official Go SDK (through tapeloop's providers, plain JSON calls)
// from a local httptest server serving the tape's turns in the vendor's
// wire format; the tools, workspace and diffs run as in the replay, and the
// outcome's golden is checked to be the replay's.
func BenchmarkSDK(b *testing.B) {
	// The scenario's tape says what the wire answers carry beside content
	// and calls (their finish reasons), so that the replay's golden is what
	// a run over the wire must give.
	path := filepath.Join(b.TempDir(), "ten-turns-wire.yaml")
	// The arguments are compact JSON, as the Anthropic SDK re-encodes a
	// tool_use input.
	text := strings.NewReplacer(`": "`, `":"`, `", "`, `","`).Replace(scenarioText())
	text = strings.ReplaceAll(text, "      tool_calls:\n", "      finish_reason: tool_calls\n      tool_calls:\n")
	text = strings.Replace(text, "{content: Done.}", "{content: Done., finish_reason: stop}", 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	s, _, want := replayOnce(b, path)
	for _, vendor := range []struct {
		name, provider, model, base string
		order                       int
		bodies                      [][]byte
	}{
		{"official OpenAI Go SDK against an httptest server", "openai", "gpt-4.1-mini", "/v1", 7, openAIBodies()},
		{"official Anthropic Go SDK against an httptest server", "anthropic", "claude-sonnet-4-5", "", 8, anthropicBodies()},
	} {
		b.Run(vendor.provider, func(b *testing.B) {
			srv := wireServer(b, vendor.bodies)
			m, err := llm.Open(ctx, vendor.provider+"/"+vendor.model, &llm.OpenOptions{APIKey: "test-key", BaseURL: srv.URL + vendor.base,
				HTTPClient: srv.Client(), NoStream: true, Getenv: func(string) string { return "" }})
			if err != nil {
				b.Fatal(err)
			}
			run := func() *harness.Outcome {
				o, err := harness.Run(ctx, s, &harness.RunOptions{Model: m})
				if err != nil {
					b.Fatal(err)
				}
				if o.Error != "" || len(o.Turns) != turns {
					b.Fatalf("the run over %s ended with %q after %d turns", vendor.provider, o.Error, len(o.Turns))
				}
				return o
			}
			got, err := run().Golden(redact.Default())
			if err != nil {
				b.Fatal(err)
			}
			if string(got) != string(want) {
				b.Fatalf("the run over %s differs from the replay:\n%s", vendor.provider, udiff.FirstHunk(string(want), string(got)))
			}
			before := benchrow.Read()
			b.ResetTimer()
			for b.Loop() {
				run()
			}
			record(b, vendor.order, vendor.name, before)
		})
	}
}
