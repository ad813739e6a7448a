package wiretest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, s *Server, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

type completion struct {
	Choices []struct {
		Message struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct{ Name, Arguments string }
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
	} `json:"usage"`
}

func decode(t *testing.T, body string) completion {
	t.Helper()
	var c completion
	if err := json.Unmarshal([]byte(body), &c); err != nil || len(c.Choices) != 1 {
		t.Fatalf("not a completion (%v): %s", err, body)
	}
	return c
}

func TestScriptedAnswers(t *testing.T) {
	s := New(nil)
	defer s.Close()
	first := `{"model": "%s", "messages": [{"role": "user", "content": "go"}]}`
	after := `{"model": "%s", "messages": [{"role": "user", "content": "go"}, {"role": "assistant", "content": null}, {"role": "tool", "content": "ok"}]}`
	for _, tc := range []struct{ model, args string }{
		{"right", `{"path": "notes.txt", "content": "hello\nworld\n"}`},
		{"wrong", `{"path": "notes.txt", "content": "world\n"}`},
		{"broken", `{"path": "notes.txt", "content": "hello\nworld\n",}`},
		{"alternate", `{"path": "notes.txt", "content": "hello\nworld\n"}`},
		{"alternate", `{"path": "notes.txt", "content": "world\n"}`},
		{"steps-3", `{"path": "notes.txt"}`},
	} {
		_, body := post(t, s, strings.Replace(first, "%s", tc.model, 1))
		c := decode(t, body)
		calls := c.Choices[0].Message.ToolCalls
		if len(calls) != 1 || calls[0].Function.Arguments != tc.args || c.Choices[0].FinishReason != "tool_calls" {
			t.Errorf("%s: %s; want a call with %s", tc.model, body, tc.args)
		}
	}
	_, body := post(t, s, strings.Replace(after, "%s", "right", 1))
	if c := decode(t, body); c.Choices[0].Message.Content == nil || *c.Choices[0].Message.Content != "done" || c.Usage.PromptTokens != 50 {
		t.Errorf("after the tool answered: %s; want done", body)
	}
	if resp, body := post(t, s, strings.Replace(first, "%s", "garbage", 1)); resp.StatusCode != 200 || json.Valid([]byte(body)) {
		t.Errorf("garbage: %d %s; want 200 and a body that is not JSON", resp.StatusCode, body)
	}
	if s.Requests() != 8 {
		t.Errorf("%d requests counted; want 8", s.Requests())
	}
}

func TestStreamAndRateLimits(t *testing.T) {
	s := New(&Options{RateLimited: 1, RetryAfter: "2"})
	defer s.Close()
	req := `{"model": "right", "stream": true, "messages": [{"role": "user", "content": "go"}]}`
	resp, body := post(t, s, req)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "2" {
		t.Errorf("first request: %d Retry-After %q; want 429 and 2", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	resp, body = post(t, s, req)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") ||
		!strings.Contains(body, `"name":"write_file"`) || !strings.Contains(body, `"finish_reason":"tool_calls"`) || !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Errorf("second request: %d %s", resp.StatusCode, body)
	}
	if s.RateLimitedRequests() != 1 {
		t.Errorf("%d rate limited; want 1", s.RateLimitedRequests())
	}
}
