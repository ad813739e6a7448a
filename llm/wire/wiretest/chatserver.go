// Package wiretest is an OpenAI-compatible Chat Completions server (and,
// for the same scripts, a Responses API one) for tests and benchmarks: it answers with scripted, deliberately varying
// behaviour chosen by the request's model name, so that an evaluation can be
// run end to end over HTTP with no real model.
//
//	srv := wiretest.New(nil)
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
// Other models hold conversations instead (an agent that answers each user
// message, simulated users that write N messages and stop, or fail): see
// converse.
//
// Two more models are judges (expect.judge), answering a judge request
// with a verdict in one text answer:
//
//	judge          {"score": 1, "pass": true, ...} when the request's last
//	               message holds `hello\nworld` (the right write, as a
//	               transcript shows its arguments) or the word "secret",
//	               else {"score": 0, "pass": false, ...}; the reason quotes
//	               the last line of the last message
//	judge-garbage  "I would say it passes." (no verdict)
//
// Answers are encoded by llm/wire. Options.RateLimited answers that many requests, first, with HTTP 429 and
// Retry-After. Options.Latency sleeps in the handler before answering (for
// benchmarks; never in a test's assertions).
package wiretest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
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
	byModel       map[string]int
	requests      int
	limited       int
}

// New starts a server.
func New(opts *Options) *Server {
	s := &Server{conversations: map[string]int{}, byModel: map[string]int{}}
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

// RequestsFor returns the number of requests served for model (the
// request's model name, without the provider), 429s excluded.
func (s *Server) RequestsFor(model string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byModel[model]
}

// RateLimitedRequests returns the number of requests answered with 429.
func (s *Server) RateLimitedRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limited
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.opts.Latency > 0 {
		time.Sleep(s.opts.Latency)
	}
	body, err := io.ReadAll(r.Body)
	var call *wire.Call
	if err == nil {
		call, err = wire.Decode(r.URL.Path, body)
	}
	if err != nil || (call.Format != wire.OpenAI && call.Format != wire.Responses) {
		(&wire.Error{Status: http.StatusBadRequest, Message: "bad request"}).Write(w, wire.OpenAI)
		return
	}
	s.mu.Lock()
	s.requests++
	if s.limited < s.opts.RateLimited {
		s.limited++
		s.mu.Unlock()
		secs, _ := strconv.Atoi(s.opts.RetryAfter)
		(&wire.Error{Status: http.StatusTooManyRequests, Message: "rate limited", RetryAfter: time.Duration(secs) * time.Second}).Write(w, wire.OpenAI)
		return
	}
	s.byModel[call.Model]++
	if msg, fail, ok := converse(call.Model, &call.Request); ok {
		s.mu.Unlock()
		if fail {
			(&wire.Error{Status: http.StatusBadRequest, Message: "this model refuses every request"}).Write(w, wire.OpenAI)
			return
		}
		wire.WriteResponse(w, call, &llm.Response{Message: msg, Usage: usage}, &wire.Options{Chunk: 1 << 20, ID: "chatcmpl-1"})
		return
	}
	toolAnswers := 0
	for _, m := range call.Request.Messages {
		if m.Role == llm.RoleTool {
			toolAnswers++
		}
	}
	if toolAnswers == 0 {
		s.conversations[call.Model]++
	}
	conversation := s.conversations[call.Model]
	s.mu.Unlock()

	if strings.HasPrefix(call.Model, "judge") {
		wire.WriteResponse(w, call, &llm.Response{Message: llm.AssistantMessage(verdict(call)), Usage: usage}, &wire.Options{Chunk: 1 << 20, ID: "chatcmpl-1"})
		return
	}
	if call.Model == "garbage" {
		w.Header().Set("Content-Type", wire.ContentJSON)
		fmt.Fprint(w, `{"id": "x", "choices": [{"index": 0, "message": {"role": "assis`)
		return
	}
	steps := 2
	if n, ok := strings.CutPrefix(call.Model, "steps-"); ok {
		steps, _ = strconv.Atoi(n)
	}
	var msg llm.Message
	switch {
	case toolAnswers >= steps-1:
		msg = llm.AssistantMessage("done")
	case toolAnswers < steps-2:
		msg = callMessage(toolAnswers, "read_file", `{"path": "notes.txt"}`)
	default:
		right := call.Model != "wrong" && (call.Model != "alternate" || conversation%2 == 1)
		content := "hello\\nworld\\n"
		if !right {
			content = "world\\n"
		}
		args := `{"path": "notes.txt", "content": "` + content + `"}`
		if call.Model == "broken" {
			args = `{"path": "notes.txt", "content": "` + content + `",}`
		}
		msg = callMessage(toolAnswers, "write_file", args)
	}
	// The whole text and each call's arguments in one fragment.
	wire.WriteResponse(w, call, &llm.Response{Message: msg, Usage: usage}, &wire.Options{Chunk: 1 << 20, ID: "chatcmpl-1"})
}

// verdict is a judge model's answer to call.
func verdict(call *wire.Call) string {
	if call.Model == "judge-garbage" {
		return "I would say it passes."
	}
	last, _ := call.Request.LastMessage()
	lines := strings.Split(strings.TrimRight(last.Content, "\n"), "\n")
	reason, _ := json.Marshal("the text ends with " + lines[len(lines)-1])
	if strings.Contains(last.Content, `hello\nworld`) || strings.Contains(last.Content, "secret") {
		return `{"score": 1, "pass": true, "reason": ` + string(reason) + `}`
	}
	return `{"score": 0, "pass": false, "reason": ` + string(reason) + `}`
}

// usage is what every answer reports.
var usage = llm.Usage{InputTokens: 50, OutputTokens: 10, CachedInputTokens: 20}

func callMessage(n int, name, args string) llm.Message {
	return llm.AssistantMessage("", llm.ToolCall{ID: fmt.Sprintf("call_%d", n+1), Name: name, Arguments: args})
}
