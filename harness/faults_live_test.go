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
	"github.com/tapeloop/tapeloop/scenario"
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
	if strings.HasSuffix(r.URL.Path, "/messages") {
		s.serveAnthropic(w, r)
		return
	}
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

// next returns the next scripted answer, or false (and a 500) when none is.
func (s *chatServer) next(w http.ResponseWriter) (llm.Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.served >= len(s.script) {
		s.t.Errorf("request %d has no scripted answer", s.served+1)
		http.Error(w, `{"type":"error","error":{"type":"api_error","message":"no answer scripted"}}`, 500)
		return llm.Message{}, false
	}
	s.served++
	return s.script[s.served-1], true
}

// serveAnthropic answers as the Messages API streams: message_start, one
// block per text or tool call (input in two input_json_delta fragments),
// message_delta with the stop reason, message_stop.
func (s *chatServer) serveAnthropic(w http.ResponseWriter, r *http.Request) {
	msg, ok := s.next(w)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(typ string, v map[string]any) {
		v["type"] = typ
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
	}
	event("message_start", map[string]any{"message": map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}})
	index := 0
	if msg.Content != "" {
		event("content_block_start", map[string]any{"index": index, "content_block": map[string]any{"type": "text", "text": ""}})
		event("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "text_delta", "text": msg.Content}})
		event("content_block_stop", map[string]any{"index": index})
		index++
	}
	for _, c := range msg.ToolCalls {
		event("content_block_start", map[string]any{"index": index, "content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}})
		half := len(c.Arguments) / 2
		for _, part := range []string{c.Arguments[:half], c.Arguments[half:]} {
			event("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
		}
		event("content_block_stop", map[string]any{"index": index})
		index++
	}
	stop := "end_turn"
	if len(msg.ToolCalls) > 0 {
		stop = "tool_use"
	}
	event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	event("message_stop", map[string]any{})
}

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
			s, err := scenario.Load("../scenarios/faults/"+c.name+".yaml", "../scenarios")
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
			o, err := Run(context.Background(), s, &RunOptions{Model: rec, Clock: clock.NewVirtual(clock.Epoch)})
			if err != nil {
				t.Fatal(err)
			}
			if len(ft.Applied()) != len(s.Faults) {
				t.Errorf("applied %v, want every fault of %v", ft.Applied(), s.Faults)
			}
			if fails := Check(s, o); len(fails) > 0 {
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

// TestFaultScenariosLiveAnthropic runs the faults that speak the vendor's
// dialect (error bodies, the error event in a stream, cut streams, cut
// input_json_delta arguments) against an Anthropic Messages server through
// the official Anthropic SDK: the loop sees the same kinds of failure as
// with OpenAI (the messages are the provider's own, so they are not
// compared), and the expectations hold.
func TestFaultScenariosLiveAnthropic(t *testing.T) {
	read := call("toolu_1", "read_file", `{"path":"notes.txt"}`)
	hello := text("It says hello.")
	cases := []struct {
		name   string
		script []llm.Message
	}{
		{"rate-limited", []llm.Message{read, hello}},
		{"server-error", []llm.Message{read, hello}},
		{"stream-cut", []llm.Message{read, read, hello}},
		{"stream-error", []llm.Message{read, read, hello}},
		{"timeout", []llm.Message{read, hello}},
		{"retries-exhausted", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := scenario.Load("../scenarios/faults/"+c.name+".yaml", "../scenarios")
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(&chatServer{t: t, script: c.script})
			defer srv.Close()
			model, err := llm.Open(context.Background(), "anthropic/claude-test", &llm.OpenOptions{
				BaseURL: srv.URL, APIKey: "sk-ant-test", HTTPClient: &http.Client{Transport: s.FaultTransport(srv.Client().Transport)},
			})
			if err != nil {
				t.Fatal(err)
			}
			rec := replay.NewRecorder(model, nil)
			o, err := Run(context.Background(), s, &RunOptions{Model: rec, Clock: clock.NewVirtual(clock.Epoch)})
			if err != nil {
				t.Fatal(err)
			}
			if fails := Check(s, o); len(fails) > 0 {
				t.Errorf("live, the expectations fail:\n%s", strings.Join(fails, "\n"))
			}
			var got, want []string
			for _, e := range rec.Tape().Entries {
				got = append(got, fmt.Sprintf("%s/%d/%v", e.ErrorKind, e.ErrorStatus, e.RetryAfter))
			}
			for _, e := range s.Tape {
				want = append(want, fmt.Sprintf("%s/%d/%v", e.ErrorKind, e.ErrorStatus, e.RetryAfter))
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("recorded failures %v; the tape's %v", got, want)
			}
		})
	}
}
