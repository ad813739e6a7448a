package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/builtin"
	"github.com/tapeloop/tapeloop/replay"
)

// chatServer is an OpenAI-compatible server that answers the n-th request
// it receives with the n-th scripted response, streamed as Chat Completions
// chunks (the call's arguments in two fragments), or as one JSON body when
// the request does not stream.
type chatServer struct {
	t      *testing.T
	mu     sync.Mutex
	script []llm.Message
	served int
}

func (s *chatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Stream bool `json:"stream"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	s.mu.Lock()
	if s.served >= len(s.script) {
		s.mu.Unlock()
		s.t.Errorf("request %d has no scripted answer", s.served+1)
		http.Error(w, `{"error":{"message":"no answer scripted"}}`, 500)
		return
	}
	msg := s.script[s.served]
	s.served++
	s.mu.Unlock()
	finish := "stop"
	if len(msg.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	if !req.Stream {
		var calls []map[string]any
		for _, c := range msg.ToolCalls {
			calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
		}
		m := map[string]any{"role": "assistant", "content": msg.Content}
		if calls != nil {
			m["tool_calls"] = calls
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test",
			"choices": []any{map[string]any{"index": 0, "message": m, "finish_reason": finish}},
			"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "test",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if msg.Content != "" {
		chunk(map[string]any{"content": msg.Content}, nil)
	}
	for i, c := range msg.ToolCalls {
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil)
		half := len(c.Arguments) / 2
		for _, part := range []string{c.Arguments[:half], c.Arguments[half:]} {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": part}}}}, nil)
		}
	}
	chunk(map[string]any{}, finish)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

var localURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`)

func text(s string) llm.Message { return llm.AssistantMessage(s) }

func call(id, name, args string) llm.Message {
	return llm.AssistantMessage("", llm.ToolCall{ID: id, Name: name, Arguments: args})
}

// TestFaultScenariosLive runs each bundled faults/ scenario live: an
// OpenAI-compatible httptest server plays the model, the scenario's faults:
// are applied by its FaultTransport in front of the official SDK, and a
// replay.Recorder records what the loop saw. The recording must equal the
// scenario's tape entry for entry (so the bundled tapes are what a live run
// records), and the scenario's expectations must hold live as in replay.
func TestFaultScenariosLive(t *testing.T) {
	read := call("call_1", "read_file", `{"path":"notes.txt"}`)
	hello := text("It says hello.")
	cases := []struct {
		name   string
		script []llm.Message // what the server answers, request by request
	}{
		// The 429 never reaches the server.
		{"rate-limited", []llm.Message{read, hello}},
		{"server-error", []llm.Message{read, hello}},
		// The cut stream and the error event consume an answer each.
		{"stream-cut", []llm.Message{read, read, hello}},
		{"stream-error", []llm.Message{read, read, hello}},
		{"timeout", []llm.Message{read, hello}},
		{"arguments-truncated", []llm.Message{
			call("call_1", "write_file", `{"content": "hello\nworld\n", "path": "notes.txt"}`),
			call("call_2", "write_file", `{"content": "hello\nworld\n", "path": "notes.txt"}`),
			text("notes.txt now says hello and world."),
		}},
		{"retries-exhausted", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Load("../scenarios/faults/"+c.name+".yaml", "../scenarios")
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(&chatServer{t: t, script: c.script})
			defer srv.Close()
			ft := s.FaultTransport(srv.Client().Transport)
			model, err := llm.Open(context.Background(), "openai-compatible/test", &llm.OpenOptions{
				BaseURL: srv.URL, APIKey: "sk-test", HTTPClient: &http.Client{Transport: ft},
			})
			if err != nil {
				t.Fatal(err)
			}
			rec := replay.NewRecorder(model, nil)
			o, err := s.Run(context.Background(), &RunOptions{Model: rec, Clock: clock.NewVirtual(clock.Epoch)})
			if err != nil {
				t.Fatal(err)
			}
			if len(ft.Applied()) != len(s.Faults) {
				t.Errorf("applied %v, want every fault of %v", ft.Applied(), s.Faults)
			}
			if fails := s.Check(o); len(fails) > 0 {
				t.Errorf("live, the expectations fail:\n%s", strings.Join(fails, "\n"))
			}
			got, want := rec.Tape().Entries, s.Tape
			for i := range got {
				// The server's port differs from run to run.
				got[i].Error = localURL.ReplaceAllString(got[i].Error, "http://127.0.0.1:PORT")
			}
			if len(got) != len(want) {
				t.Fatalf("recorded %d entries, the tape has %d:\n%s", len(got), len(want), describe(got))
			}
			for i := range want {
				if g, w := describe(got[i:i+1]), describe(want[i:i+1]); g != w {
					t.Errorf("entry %d:\nrecorded %s\ntape     %s", i, g, w)
				}
			}
		})
	}
}

// describe renders entries for comparison: typed errors by kind, status,
// Retry-After and message; responses by content and calls.
func describe(entries []replay.Entry) string {
	var b strings.Builder
	for _, e := range entries {
		if e.Response == nil {
			fmt.Fprintf(&b, "error{%s %d %v %q} ", e.ErrorKind, e.ErrorStatus, e.RetryAfter, e.Error)
			continue
		}
		fmt.Fprintf(&b, "response{%q", e.Response.Message.Content)
		for _, c := range e.Response.Message.ToolCalls {
			fmt.Fprintf(&b, " %s %s %s", c.ID, c.Name, c.Arguments)
		}
		b.WriteString("} ")
	}
	return b.String()
}
