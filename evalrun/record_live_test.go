package evalrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/builtin" // the providers llm.Open finds by name
)

// chatServer is an OpenAI-compatible Chat Completions server for the
// record command's tests: each request gets the next scripted answer,
// streamed as the API streams it. It keeps what it received.
type chatServer struct {
	*httptest.Server
	t       *testing.T
	mu      sync.Mutex
	answers []chatAnswer
	got     []*http.Request
	// block, when set, is called with the 1-based request number before
	// answering; it may wait for the request's context.
	block func(n int, r *http.Request)
	// anthropic makes it speak the Messages API instead.
	anthropic bool
	// limited, when set, is asked for each request by number (from 1)
	// whether to answer it with HTTP 429: its Retry-After in seconds, or
	// "" to answer from the script (whose answers are numbered without
	// the 429s). limitedStatus answers them with another status (503);
	// 0 means 429. clock, when set, stamps each request's arrival in at.
	limited       func(n int) string
	limitedStatus int
	clock         clock.Clock
	at            []time.Time
	served        int
}

// chatAnswer is a text or one tool call, with its usage.
type chatAnswer struct {
	text          string
	callID, name  string
	arguments     string
	inTok, outTok int
}

func newChatServer(t *testing.T, answers ...chatAnswer) *chatServer {
	s := &chatServer{t: t, answers: answers}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *chatServer) serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	s.mu.Lock()
	s.got = append(s.got, r.Clone(context.Background()))
	n := len(s.got)
	s.mu.Unlock()
	if s.block != nil {
		s.block(n, r)
	}
	if s.clock != nil {
		s.mu.Lock()
		s.at = append(s.at, s.clock.Now())
		s.mu.Unlock()
	}
	if s.limited != nil {
		if after := s.limited(n); after != "" {
			w.Header().Set("Retry-After", after)
			w.Header().Set("Content-Type", "application/json")
			if s.limitedStatus != 0 {
				w.WriteHeader(s.limitedStatus)
				fmt.Fprint(w, `{"error": {"message": "The server is overloaded", "type": "server_error"}}`)
				return
			}
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}`)
			return
		}
		s.mu.Lock()
		s.served++
		n = s.served
		s.mu.Unlock()
	}
	want := "/v1/chat/completions"
	if s.anthropic {
		want = "/v1/messages"
	}
	if r.URL.Path != want || n > len(s.answers) {
		http.Error(w, `{"error": {"message": "no answer scripted"}}`, http.StatusTeapot)
		return
	}
	a := s.answers[n-1]
	if s.anthropic {
		serveAnthropic(w, a)
		return
	}
	delta := map[string]any{"role": "assistant", "content": a.text}
	finish := "stop"
	if a.name != "" {
		delta = map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{
			"index": 0, "id": a.callID, "type": "function",
			"function": map[string]any{"name": a.name, "arguments": a.arguments}}}}
		finish = "tool_calls"
	}
	chunk := func(choices []any, usage any) string {
		c := map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test", "choices": choices}
		if usage != nil {
			c["usage"] = usage
		}
		b, _ := json.Marshal(c)
		return "data: " + string(b) + "\n\n"
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, chunk([]any{map[string]any{"index": 0, "delta": delta, "finish_reason": nil}}, nil))
	fmt.Fprint(w, chunk([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}, nil))
	fmt.Fprint(w, chunk([]any{}, map[string]any{"prompt_tokens": a.inTok, "completion_tokens": a.outTok, "total_tokens": a.inTok + a.outTok}))
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// recordLive runs the record command with the real providers.
func recordLive(ctx context.Context, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := recordCommand(ctx, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}, args, llm.Open)
	return code, elapsed.ReplaceAllString(out.String(), ", $$T\n"), errb.String()
}

// TestRecordAgainstAnOpenAIServer records over HTTP from an
// OpenAI-compatible server: a fresh scenario, then a replay with the server
// gone; --mode all; extend; the key sent but never written; Ctrl-C midway.
func TestRecordAgainstAnOpenAIServer(t *testing.T) {
	const key = "sk-proj-LiveKey0123456789abcdefABCDEF"
	t.Setenv("OPENAI_API_KEY", key)
	write := chatAnswer{callID: "call_w1", name: "write_file", arguments: `{"path": "notes.txt", "content": "hello\nworld\n"}`, inTok: 40, outTok: 12}
	done := chatAnswer{text: "Done; the key " + key + " was not needed.", inTok: 60, outTok: 9}

	dir := newScenarios(t, map[string]string{"files/append.yaml": unrecorded})
	path := filepath.Join(dir, "files", "append.yaml")
	srv := newChatServer(t, write, done)
	code, out, errOut := recordLive(context.Background(), "--model", "openai/gpt-test", "--base-url", srv.URL+"/v1", path)
	if code != exitOK || !strings.HasPrefix(out, "recorded  files/append  2 model calls, 100 tokens in, 21 out, $T\n    PASS  replaying the recording") ||
		!strings.Contains(out, "redacted: OPENAI_API_KEY 1\n") {
		t.Fatalf("record: exit %d\n%s\n%s", code, out, errOut)
	}
	srv.mu.Lock()
	auth := srv.got[0].Header.Get("Authorization")
	srv.mu.Unlock()
	if got := auth; got != "Bearer "+key {
		t.Errorf("the server got Authorization %q", got)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{
		"# Appending a line, as the model really does it.\n", "# Recorded by evalrun record.\ntape:\n",
		"termination: final_text   # must end with an answer\n",
		"          arguments: '{\"path\": \"notes.txt\", \"content\": \"hello\\nworld\\n\"}'\n",
		"      content: Done; the key [REDACTED] was not needed.\n",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the recorded file lacks %q:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), key) || strings.Contains(string(data), "Authorization") {
		t.Errorf("the key reached the file:\n%s", data)
	}
	srv.Close()
	if code, out, _ := runCmd(t, "replay", path); code != exitOK {
		t.Errorf("replay with the server gone: exit %d\n%s", code, out)
	}

	// --mode all: a new server, a different run.
	srv2 := newChatServer(t, chatAnswer{callID: "call_r", name: "read_file", arguments: `{"path":"notes.txt"}`}, write, done)
	if code, out, _ := recordLive(context.Background(), "--model", "openai/gpt-test", "--base-url", srv2.URL+"/v1", "--mode", "all", path); code != exitOK || !strings.HasPrefix(out, "recorded  files/append  3 model calls") {
		t.Fatalf("--mode all: exit %d\n%s", code, out)
	}
	if data, _ = os.ReadFile(path); !strings.Contains(string(data), "id: call_r\n") || strings.Count(string(data), "- response:") != 3 {
		t.Errorf("--mode all did not replace the tape:\n%s", data)
	}

	// extend: cut the tape after its first entry; the rest comes live.
	cut := string(data)[:strings.Index(string(data), "  - response:\n      tool_calls:\n        - id: call_w1")] + "\nexpect:\n  termination: final_text\n"
	os.WriteFile(path, []byte(cut), 0o644)
	srv3 := newChatServer(t, write, done)
	if code, out, _ := recordLive(context.Background(), "--model", "openai/gpt-test", "--base-url", srv3.URL+"/v1", "--mode", "extend", path); code != exitOK || !strings.HasPrefix(out, "recorded  files/append  2 model calls") {
		t.Fatalf("extend: exit %d\n%s", code, out)
	}
	data, _ = os.ReadFile(path)
	if !strings.HasPrefix(string(data), cut[:strings.Index(cut, "\nexpect:")]) || strings.Count(string(data), "- response:") != 3 {
		t.Errorf("extend did not append after the kept entry:\n%s", data)
	}

	// Ctrl-C while the server is answering the second call.
	before := string(data)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv4 := newChatServer(t, chatAnswer{callID: "call_x", name: "read_file", arguments: `{"path":"notes.txt"}`}, done)
	srv4.block = func(n int, r *http.Request) {
		if n == 2 {
			cancel()
			<-r.Context().Done()
		}
	}
	code, out, _ = recordLive(ctx, "--model", "openai/gpt-test", "--base-url", srv4.URL+"/v1", "--mode", "all", path)
	if code != exitFailed || !strings.Contains(out, "STOPPED   files/append") {
		t.Errorf("Ctrl-C: exit %d\n%s", code, out)
	}
	if data, _ := os.ReadFile(path); string(data) != before {
		t.Errorf("the interrupted recording changed the file:\n%s", data)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("a temporary file was left: %s", e.Name())
		}
	}
}

// serveAnthropic streams a as the Messages API does.
func serveAnthropic(w http.ResponseWriter, a chatAnswer) {
	event := func(name string, data map[string]any) {
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	event("message_start", map[string]any{"message": map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
		"content": []any{}, "stop_reason": nil, "usage": map[string]any{"input_tokens": a.inTok, "output_tokens": 1}}})
	stop := "end_turn"
	if a.name != "" {
		stop = "tool_use"
		event("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "tool_use", "id": a.callID, "name": a.name, "input": map[string]any{}}})
		event("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": a.arguments}})
	} else {
		event("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		event("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": a.text}})
	}
	event("content_block_stop", map[string]any{"index": 0})
	event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop}, "usage": map[string]any{"output_tokens": a.outTok}})
	event("message_stop", map[string]any{})
}

// TestRecordAgainstAnAnthropicServer records over HTTP from a Messages API
// server, then replays with the server gone; the key goes in x-api-key and
// never into the file.
func TestRecordAgainstAnAnthropicServer(t *testing.T) {
	if !slices.Contains(llm.Providers(), "anthropic") {
		t.Skip("no anthropic provider is built in yet (llm/builtin)")
	}
	const key = "sk-ant-api03-LiveKey0123456789abcdefABCDEF"
	t.Setenv("ANTHROPIC_API_KEY", key)
	dir := newScenarios(t, map[string]string{"files/append.yaml": unrecorded})
	path := filepath.Join(dir, "files", "append.yaml")
	srv := newChatServer(t,
		chatAnswer{callID: "toolu_1", name: "write_file", arguments: `{"path": "notes.txt", "content": "hello\nworld\n"}`, inTok: 40, outTok: 12},
		chatAnswer{text: "Done (x-api-key: " + key + ").", inTok: 60, outTok: 9})
	srv.anthropic = true
	code, out, errOut := recordLive(context.Background(), "--model", "anthropic/claude-test", "--base-url", srv.URL, path)
	if code != exitOK || !strings.HasPrefix(out, "recorded  files/append  2 model calls, 100 tokens in, 21 out, $T\n    PASS  replaying the recording") {
		t.Fatalf("record: exit %d\n%s\n%s", code, out, errOut)
	}
	srv.mu.Lock()
	sent := srv.got[0].Header.Get("X-Api-Key")
	srv.mu.Unlock()
	if sent != key {
		t.Errorf("the server got x-api-key %q", sent)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{
		"# Recorded by evalrun record.\ntape:\n", "termination: final_text   # must end with an answer\n",
		"        - id: toolu_1\n          name: write_file\n",
		"      content: 'Done (x-api-key: [REDACTED]).'\n",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the recorded file lacks %q:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), key) {
		t.Errorf("the key reached the file:\n%s", data)
	}
	srv.Close()
	if code, out, _ := runCmd(t, "replay", path); code != exitOK {
		t.Errorf("replay with the server gone: exit %d\n%s", code, out)
	}
}
