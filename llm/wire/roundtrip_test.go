package wire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/anthropic" // the providers whose SDKs parse what wire encodes
	_ "github.com/tapeloop/tapeloop/llm/openai"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// TestMain checks that no test leaves a goroutine behind, but the one
// go.opencensus.io starts when it loads (genai's auth transport imports it).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}

// handlerClient serves h in process: no socket, the response recorded.
func handlerClient(h http.Handler) *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		resp := rec.Result()
		resp.Request = r // the SDKs read the request back from a stream's error event
		return resp, nil
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// server decodes each request with wire.Decode, keeps it, and answers with
// answer's response or error.
type server struct {
	t      *testing.T
	calls  []*wire.Call
	answer func(*wire.Call) (*llm.Response, *wire.Error)
	opts   *wire.Options
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c, err := wire.Decode(r.URL.Path, body)
	if err != nil {
		s.t.Errorf("decoding %s: %v\n%s", r.URL.Path, err, body)
		(&wire.Error{Status: 400, Message: err.Error()}).Write(w, wire.OpenAI)
		return
	}
	s.calls = append(s.calls, c)
	resp, e := s.answer(c)
	if e != nil {
		e.Write(w, c.Format)
		return
	}
	wire.WriteResponse(w, c, resp, s.opts)
}

func open(t *testing.T, provider string, h http.Handler, noStream bool) llm.Model {
	t.Helper()
	m, err := llm.Open(t.Context(), provider, &llm.OpenOptions{
		APIKey: "sk-test", BaseURL: "http://model.test/v1", HTTPClient: handlerClient(h), NoStream: noStream,
		Getenv: func(string) string { return "" },
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// providers are the two SDK-backed providers, each with the base URL its
// SDK appends its path to.
var providers = []struct{ name, model string }{
	{"openai", "openai/gpt-test"},
	{"anthropic", "anthropic/claude-test"},
	{"openai-responses", "openai-responses/gpt-test"},
}

func TestResponsesDecodeThroughTheSDKs(t *testing.T) {
	args := `{"path": "notes/été.txt", "content": "a line that is long enough to be cut into several fragments\n"}`
	cases := []struct {
		name string
		resp llm.Response
		// openAIOnly: what only one format can carry.
		only string
	}{
		{name: "text", resp: llm.Response{Message: llm.AssistantMessage("Hello, how can I help you today? This text is long enough for fragments."), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 20, OutputTokens: 7}}},
		{name: "one call", resp: llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "write_file", Arguments: args}), FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 120, OutputTokens: 30, CachedInputTokens: 64}}},
		{name: "text and two calls", resp: llm.Response{Message: llm.AssistantMessage("Reading both.",
			llm.ToolCall{ID: "call_a", Name: "read_file", Arguments: `{"path":"a.txt"}`},
			llm.ToolCall{ID: "call_b", Name: "read_file", Arguments: `{"path":"b.txt"}`}), FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 9, OutputTokens: 4}}},
		{name: "length", resp: llm.Response{Message: llm.AssistantMessage("cut sho"), FinishReason: llm.FinishLength, Usage: llm.Usage{InputTokens: 3, OutputTokens: 3}}},
		{name: "cache writes and reasoning tokens", resp: llm.Response{Message: llm.AssistantMessage("ok"), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 1000, OutputTokens: 50, CachedInputTokens: 600, CacheWriteTokens: 300, ReasoningTokens: 20}}},
		{name: "reasoning", only: "openai", resp: llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "42", Reasoning: []llm.Reasoning{{Text: "Six times seven, thought through at some length."}}}, FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 5, OutputTokens: 9}}},
		{name: "signed thinking", only: "anthropic", resp: llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "42",
			Reasoning: []llm.Reasoning{{Text: "Six times seven.", Signature: "c2lnbmF0dXJl"}, {Redacted: "b3BhcXVl"}},
			ToolCalls: []llm.ToolCall{{ID: "toolu_1", Name: "calc", Arguments: `{"a":6,"b":7}`}}}, FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 5, OutputTokens: 9}}},
		{name: "reasoning item kept as it came", only: "openai-responses", resp: llm.Response{Message: llm.Message{Role: llm.RoleAssistant,
			Reasoning: []llm.Reasoning{{Text: "The user wants a file read.", Signature: reasoningItem}},
			ToolCalls: []llm.ToolCall{{ID: "call_r", Name: "read_file", Arguments: `{"path":"a.txt"}`}}}, FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 5, OutputTokens: 9, ReasoningTokens: 4}}},
		{name: "refusal", only: "anthropic", resp: llm.Response{Message: llm.AssistantMessage("I can't help with that."), FinishReason: llm.FinishFiltered, Usage: llm.Usage{InputTokens: 5, OutputTokens: 6}}},
		{name: "pause", only: "anthropic", resp: llm.Response{Message: llm.AssistantMessage("Still searching"), FinishReason: llm.FinishPause, Usage: llm.Usage{InputTokens: 5, OutputTokens: 6}}},
	}
	for _, p := range providers {
		for _, tc := range cases {
			if tc.only != "" && tc.only != p.name {
				continue
			}
			for _, noStream := range []bool{false, true} {
				name := p.name + "/" + tc.name + "/stream"
				if noStream {
					name = p.name + "/" + tc.name + "/json"
				}
				t.Run(name, func(t *testing.T) {
					s := &server{t: t, opts: &wire.Options{Chunk: 7}, answer: func(*wire.Call) (*llm.Response, *wire.Error) { return &tc.resp, nil }}
					got, err := open(t, p.model, s, noStream).Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
					if err != nil {
						t.Fatal(err)
					}
					want := tc.resp
					if p.name == "anthropic" && noStream {
						// A whole Messages answer holds a call's input as
						// JSON, not text: its spacing is not kept.
						want.Message = want.Message.Clone()
						for i, c := range want.Message.ToolCalls {
							var b bytes.Buffer
							json.Compact(&b, []byte(c.Arguments))
							want.Message.ToolCalls[i].Arguments = b.String()
						}
					}
					if p.name == "openai-responses" {
						// The Responses API counts no cache writes, and its
						// usage always states the cache's reads: a count
						// of zero is reported.
						want.Usage.CacheWriteTokens = 0
						want.Usage.CacheReported = llm.ReportedZeroCache(true, want.Usage.CachedInputTokens, 0)
					}
					if !reflect.DeepEqual(*got, want) {
						t.Errorf("decoded\n got %+v\nwant %+v", *got, want)
					}
					if len(s.calls) != 1 || s.calls[0].Stream == noStream {
						t.Errorf("calls %+v, want one with stream %v", s.calls, !noStream)
					}
				})
			}
		}
	}
}

// TestRequestsDecodeAsSent sends a whole conversation through each SDK and
// checks that wire decodes it back: system prompt, tools with description
// and schema, calls with ids and arguments, results (an error among them),
// the stream flag.
func TestRequestsDecodeAsSent(t *testing.T) {
	schema := `{"type":"object","properties":{"path":{"type":"string","description":"where"}},"required":["path"],"additionalProperties":false}`
	req := &llm.Request{
		Messages: []llm.Message{
			llm.SystemMessage("You are careful."),
			llm.UserMessage("Read a.txt and b.txt."),
			llm.AssistantMessage("Reading.", llm.ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path":"a.txt"}`}, llm.ToolCall{ID: "call_2", Name: "read_file", Arguments: `{"path":"b.txt"}`}),
			llm.ToolMessage("call_1", "read_file", "alpha"),
			{Role: llm.RoleTool, ToolCallID: "call_2", Name: "read_file", Content: "no such file", IsError: true},
			llm.AssistantMessage("a.txt says alpha."),
			llm.UserMessage("Thanks."),
		},
		Tools: []llm.ToolDefinition{{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(schema)}},
	}
	for _, p := range providers {
		for _, noStream := range []bool{false, true} {
			t.Run(p.name+map[bool]string{false: "/stream", true: "/json"}[noStream], func(t *testing.T) {
				s := &server{t: t, answer: func(*wire.Call) (*llm.Response, *wire.Error) {
					return &llm.Response{Message: llm.AssistantMessage("ok"), FinishReason: llm.FinishStop}, nil
				}}
				if _, err := open(t, p.model, s, noStream).Generate(t.Context(), req); err != nil {
					t.Fatal(err)
				}
				if len(s.calls) != 1 {
					t.Fatalf("%d calls", len(s.calls))
				}
				c := s.calls[0]
				if c.Stream == noStream || !strings.HasSuffix(p.model, c.Model) {
					t.Errorf("stream %v model %q", c.Stream, c.Model)
				}
				want := *req
				want.Messages = append([]llm.Message(nil), req.Messages...)
				if p.name != "anthropic" {
					// Chat Completions and Responses have no is_error: a
					// failed result is text.
					want.Messages[4].IsError = false
				}
				if !reflect.DeepEqual(c.Request.Messages, want.Messages) {
					t.Errorf("messages\n got %+v\nwant %+v", c.Request.Messages, want.Messages)
				}
				if len(c.Request.Tools) != 1 || c.Request.Tools[0].Name != "read_file" || c.Request.Tools[0].Description != "Read a file." || !sameJSON(t, c.Request.Tools[0].Parameters, schema) {
					t.Errorf("tools %+v", c.Request.Tools)
				}
			})
		}
	}
}

func sameJSON(t *testing.T, a json.RawMessage, b string) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func TestErrorsDecodeThroughTheSDKs(t *testing.T) {
	cases := []struct {
		name  string
		err   wire.Error
		kind  llm.ErrorKind
		retry time.Duration
		// status per format when err.Status is 0
		status map[string]int
	}{
		{name: "rate limited with retry-after", err: wire.Error{Kind: llm.ErrRateLimited, Message: "slow down", RetryAfter: 2 * time.Second}, kind: llm.ErrRateLimited, retry: 2 * time.Second, status: map[string]int{"openai": 429, "anthropic": 429, "openai-responses": 429}},
		{name: "rate limited, fractional retry-after", err: wire.Error{Status: 429, Message: "slow down", RetryAfter: 1500 * time.Millisecond}, kind: llm.ErrRateLimited, retry: 1500 * time.Millisecond},
		{name: "overloaded", err: wire.Error{Kind: llm.ErrOverloaded, Message: "Overloaded"}, kind: llm.ErrOverloaded, status: map[string]int{"openai": 503, "anthropic": 529, "openai-responses": 503}},
		{name: "529", err: wire.Error{Status: 529, Message: "Overloaded"}, kind: llm.ErrOverloaded},
		{name: "500", err: wire.Error{Status: 500, Message: "internal"}, kind: llm.ErrOverloaded},
		{name: "bad request", err: wire.Error{Kind: llm.ErrBadRequest, Message: "messages: at least one message is required"}, kind: llm.ErrBadRequest, status: map[string]int{"openai": 400, "anthropic": 400, "openai-responses": 400}},
		{name: "context too long", err: wire.Error{Kind: llm.ErrContextTooLong, Message: "213000 tokens > 200000 maximum"}, kind: llm.ErrContextTooLong, status: map[string]int{"openai": 400, "anthropic": 400, "openai-responses": 400}},
		{name: "auth", err: wire.Error{Status: 401, Message: "invalid x-api-key"}, kind: llm.ErrAuth},
		{name: "timeout", err: wire.Error{Kind: llm.ErrTimeout, Message: "took too long"}, kind: llm.ErrTimeout, status: map[string]int{"openai": 408, "anthropic": 408, "openai-responses": 408}},
		{name: "malformed", err: wire.Error{Kind: llm.ErrMalformed}, kind: llm.ErrMalformed, status: map[string]int{"openai": 0, "anthropic": 0, "openai-responses": 0}},
	}
	for _, p := range providers {
		for _, tc := range cases {
			for _, noStream := range []bool{false, true} {
				t.Run(p.name+"/"+tc.name+map[bool]string{false: "/stream", true: "/json"}[noStream], func(t *testing.T) {
					s := &server{t: t, answer: func(*wire.Call) (*llm.Response, *wire.Error) { return nil, &tc.err }}
					_, err := open(t, p.model, s, noStream).Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
					var pe *llm.ProviderError
					if !errors.As(err, &pe) {
						t.Fatalf("error %v is not a *llm.ProviderError", err)
					}
					status := tc.err.Status
					if st, ok := tc.status[p.name]; ok {
						status = st
					}
					if pe.Kind != tc.kind || pe.StatusCode != status || pe.RetryAfter != tc.retry {
						t.Errorf("kind %s, status %d, retry after %v; want %s, %d, %v (%v)", pe.Kind, pe.StatusCode, pe.RetryAfter, tc.kind, status, tc.retry, err)
					}
					if tc.err.Message != "" && !strings.Contains(pe.Message, tc.err.Message) {
						t.Errorf("message %q does not hold %q", pe.Message, tc.err.Message)
					}
				})
			}
		}
	}
}

func TestStreamErrorEvent(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			f := map[string]wire.Format{"openai": wire.OpenAI, "anthropic": wire.Anthropic, "openai-responses": wire.Responses}[p.name]
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				c, err := wire.Decode(r.URL.Path, body)
				if err != nil {
					t.Fatal(err)
				}
				_, stream := wire.EncodeResponse(c, &llm.Response{Message: llm.AssistantMessage("partial answer")}, nil)
				first := stream[:bytes.Index(stream, []byte("\n\n"))+2]
				w.Header().Set("Content-Type", wire.ContentStream)
				w.Write(first)
				w.Write((&wire.Error{Kind: llm.ErrRateLimited, Message: "too fast"}).Event(f))
			})
			_, err := open(t, p.model, h, false).Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
			var pe *llm.ProviderError
			if !errors.As(err, &pe) || pe.Kind != llm.ErrRateLimited || !strings.Contains(pe.Message, "too fast") {
				t.Errorf("error %v, want a rate limit saying too fast", err)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct{ path, body, want string }{
		{"/v1/embeddings", `{}`, `unknown API path: no wire format serves POST /v1/embeddings; served: POST .../chat/completions (openai), POST .../messages (anthropic)`},
		{"/v1/chat/completions", `{"messages": [{"role": "wizard", "content": "x"}]}`, `messages[0].role: unknown role "wizard"`},
		{"/v1/chat/completions", `{"messages": [{"role": "user", "content": 7}]}`, `messages[0].content:`},
		{"/v1/chat/completions", `{"tools": [{"type": "web_search"}]}`, `tools[0].type: "web_search" tools are not supported`},
		{"/v1/messages", `{"messages": [{"role": "developer", "content": "x"}]}`, `messages[0].role: unknown role "developer" (want user, assistant or system)`},
		{"/v1/messages", `not json`, `invalid request: messages body:`},
	}
	for _, tc := range cases {
		_, err := wire.Decode(tc.path, []byte(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Decode(%s, %s) = %v, want an error holding %q", tc.path, tc.body, err, tc.want)
		}
	}
}

// TestBrokenArguments: a stream carries arguments that are not JSON byte for
// byte in both formats; a whole Chat Completions body too (they are a
// string); a whole Messages body, which holds JSON, sends them as a string.
func TestBrokenArguments(t *testing.T) {
	broken := `{"path": "a.txt",`
	resp := &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "c1", Name: "read_file", Arguments: broken}), FinishReason: llm.FinishToolCalls}
	for _, p := range providers {
		for _, noStream := range []bool{false, true} {
			s := &server{t: t, answer: func(*wire.Call) (*llm.Response, *wire.Error) { return resp, nil }}
			got, err := open(t, p.model, s, noStream).Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}})
			if err != nil {
				t.Fatal(err)
			}
			want := broken
			if p.name == "anthropic" && noStream {
				want = `"{\"path\": \"a.txt\","`
			}
			if args := got.Message.ToolCalls[0].Arguments; args != want {
				t.Errorf("%s, no stream %v: arguments %s, want %s", p.name, noStream, args, want)
			}
		}
	}
}

// TestOpenAIUsageChunk: the usage chunk is sent only when the client asked.
func TestOpenAIUsageChunk(t *testing.T) {
	resp := &llm.Response{Message: llm.AssistantMessage("hi"), Usage: llm.Usage{InputTokens: 4, OutputTokens: 2}}
	for _, include := range []bool{false, true} {
		_, body := wire.EncodeResponse(&wire.Call{Format: wire.OpenAI, Stream: true, IncludeUsage: include}, resp, nil)
		if got := bytes.Contains(body, []byte(`"prompt_tokens":4`)); got != include {
			t.Errorf("include_usage %v: usage sent %v:\n%s", include, got, body)
		}
		if !bytes.HasSuffix(body, []byte("data: [DONE]\n\n")) {
			t.Errorf("the stream does not end with data: [DONE]:\n%s", body)
		}
	}
}
