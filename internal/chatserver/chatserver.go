// Package chatserver is an OpenAI-compatible Chat Completions server for
// tests and benchmarks: it answers with scripted, deliberately varying
// behaviour chosen by the request's model name, so that an evaluation can be
// run end to end over HTTP with no real model.
//
//	srv := chatserver.New(nil)
//	defer srv.Close()
//	m, _ := llm.Open(ctx, "openai-compatible/right", &llm.OpenOptions{BaseURL: srv.URL})
//
// Every model solves one task, "append a line to notes.txt": its first answer
// calls write_file, and once the tool has answered it says "done". The model
// name decides how:
//
//	right      writes "hello\nworld\n"
//	wrong      writes "world\n"
//	broken     writes the right content as broken JSON (a trailing comma)
//	alternate  right on odd conversations, wrong on even ones, in the order
//	           they start
//	garbage    answers every request with a body that is not JSON
//	steps-N    reads notes.txt N-2 times before writing (N model calls)
//
// Options.RateLimited answers that many requests, first, with HTTP 429 and
// Retry-After. Options.Latency sleeps in the handler before answering (for
// benchmarks; never in a test's assertions).
package chatserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configures a Server. A nil *Options is the zero value.
type Options struct {
	// RateLimited is the number of requests answered first with HTTP 429;
	// zero means none.
	RateLimited int
	// RetryAfter is the Retry-After header (in seconds) of those answers;
	// empty means none.
	RetryAfter string
	// Latency is slept before each answer; zero means none.
	Latency time.Duration
}

// Server is a running scripted server; URL is its base URL (".../v1").
type Server struct {
	*httptest.Server
	// URL is the API root to give as a base URL.
	URL string

	mu            sync.Mutex
	opts          Options
	conversations map[string]int
	requests      int
	limited       int
}

// New starts a server.
func New(opts *Options) *Server {
	s := &Server{conversations: map[string]int{}}
	if opts != nil {
		s.opts = *opts
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.Server.URL + "/v1"
	return s
}

// Requests returns the number of requests served, 429s included.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// RateLimitedRequests returns the number of requests answered with 429.
func (s *Server) RateLimitedRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limited
}

type request struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	} `json:"messages"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.opts.Latency > 0 {
		time.Sleep(s.opts.Latency)
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error": {"message": "bad request"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests++
	if s.limited < s.opts.RateLimited {
		s.limited++
		s.mu.Unlock()
		if s.opts.RetryAfter != "" {
			w.Header().Set("Retry-After", s.opts.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error": {"message": "rate limited", "type": "rate_limit_exceeded"}}`)
		return
	}
	toolAnswers := 0
	for _, m := range req.Messages {
		if m.Role == "tool" {
			toolAnswers++
		}
	}
	conversation := 0
	if toolAnswers == 0 {
		s.conversations[req.Model]++
	}
	conversation = s.conversations[req.Model]
	s.mu.Unlock()

	if req.Model == "garbage" {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id": "x", "choices": [{"index": 0, "message": {"role": "assis`)
		return
	}
	steps := 2
	if n, ok := strings.CutPrefix(req.Model, "steps-"); ok {
		steps, _ = strconv.Atoi(n)
	}
	var msg message
	switch {
	case toolAnswers >= steps-1:
		msg = message{Content: "done"}
	case toolAnswers < steps-2:
		msg = call(toolAnswers, "read_file", `{"path": "notes.txt"}`)
	default:
		right := req.Model != "wrong" && (req.Model != "alternate" || conversation%2 == 1)
		content := "hello\\nworld\\n"
		if !right {
			content = "world\\n"
		}
		args := `{"path": "notes.txt", "content": "` + content + `"}`
		if req.Model == "broken" {
			args = `{"path": "notes.txt", "content": "` + content + `",}`
		}
		msg = call(toolAnswers, "write_file", args)
	}
	if req.Stream {
		stream(w, msg)
		return
	}
	finish := "stop"
	if len(msg.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg.wire(), "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60, "prompt_tokens_details": map[string]any{"cached_tokens": 20}},
	})
}

type message struct {
	Content   string
	ToolCalls []toolCall
}

type toolCall struct{ id, name, args string }

func call(n int, name, args string) message {
	return message{ToolCalls: []toolCall{{id: fmt.Sprintf("call_%d", n+1), name: name, args: args}}}
}

func (m message) wire() map[string]any {
	out := map[string]any{"role": "assistant", "content": m.Content}
	if len(m.ToolCalls) > 0 {
		out["content"] = nil
		var calls []any
		for i, c := range m.ToolCalls {
			calls = append(calls, map[string]any{"index": i, "id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}})
		}
		out["tool_calls"] = calls
	}
	return out
}

// stream answers as server-sent events: the message in one delta, the
// finish reason, the usage, then [DONE].
func stream(w http.ResponseWriter, m message) {
	w.Header().Set("Content-Type", "text/event-stream")
	finish := "stop"
	if len(m.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	chunk := func(v map[string]any) {
		v["id"], v["object"], v["created"], v["model"] = "chatcmpl-1", "chat.completion.chunk", 0, "m"
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": m.wire(), "finish_reason": nil}}})
	chunk(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}})
	chunk(map[string]any{"choices": []any{}, "usage": map[string]any{"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60, "prompt_tokens_details": map[string]any{"cached_tokens": 20}}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}
