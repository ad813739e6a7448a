package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/llm"
)

func TestProviderErrorKinds(t *testing.T) {
	err := fmt.Errorf("turn 2: %w", &llm.ProviderError{Kind: llm.ErrContextTooLong, Provider: "openai", StatusCode: 400, Message: "This model's maximum context length is 8192 tokens"})
	if !errors.Is(err, llm.ErrContextTooLong) || !errors.Is(err, llm.ErrBadRequest) || errors.Is(err, llm.ErrRateLimited) {
		t.Errorf("errors.Is on a context-too-long error: %v", err)
	}
	if llm.Retryable(err) {
		t.Error("a bad request is retryable")
	}
	want := "turn 2: openai: context_too_long (HTTP 400): This model's maximum context length is 8192 tokens"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}

	rl := &llm.ProviderError{Kind: llm.ErrRateLimited, Provider: "anthropic", StatusCode: 429, RetryAfter: 3 * time.Second, Message: "slow down"}
	if !llm.Retryable(rl) || llm.RetryAfter(fmt.Errorf("x: %w", rl)) != 3*time.Second {
		t.Errorf("rate limit: retryable %v, retry after %v", llm.Retryable(rl), llm.RetryAfter(rl))
	}
	if want := "anthropic: rate_limited (HTTP 429), retry after 3s: slow down"; rl.Error() != want {
		t.Errorf("Error() = %q, want %q", rl.Error(), want)
	}
	if llm.Retryable(errors.New("plain")) || llm.Retryable(nil) || llm.RetryAfter(errors.New("plain")) != 0 {
		t.Error("a plain error is retryable or has a Retry-After")
	}
}

func TestKindForStatus(t *testing.T) {
	for _, tc := range []struct {
		status int
		msg    string
		want   llm.ErrorKind
	}{
		{401, "", llm.ErrAuth},
		{403, "", llm.ErrAuth},
		{408, "", llm.ErrTimeout},
		{429, "", llm.ErrRateLimited},
		{500, "", llm.ErrOverloaded},
		{503, "", llm.ErrOverloaded},
		{529, "Overloaded", llm.ErrOverloaded},
		{400, "Invalid 'messages'", llm.ErrBadRequest},
		{404, "model not found", llm.ErrBadRequest},
		{400, "This model's maximum context length is 128000 tokens.", llm.ErrContextTooLong},
		{400, "prompt is too long: 210000 tokens > 200000 maximum", llm.ErrContextTooLong},
		{400, `{"code":"context_length_exceeded"}`, llm.ErrContextTooLong},
		{400, "The input token count (1500000) exceeds the maximum number of tokens allowed (1048576).", llm.ErrContextTooLong},
	} {
		if got := llm.KindForStatus(tc.status, tc.msg); got != tc.want {
			t.Errorf("KindForStatus(%d, %q) = %s, want %s", tc.status, tc.msg, got, tc.want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"7", 7 * time.Second},
		{"0.5", 500 * time.Millisecond},
		{"-1", 0},
		{"soon", 0},
		{"Wed, 01 Jan 2025 00:00:30 GMT", 30 * time.Second},
		{"Tue, 31 Dec 2024 23:59:00 GMT", 0},
		// The obsolete forms HTTP still allows: RFC 850 and asctime.
		{"Wednesday, 01-Jan-25 00:00:45 GMT", 45 * time.Second},
		{"Wed Jan  1 00:01:00 2025", time.Minute},
		{"Wed, 01 Jan 2025 00:00:30 UTC", 0}, // IMF-fixdate is GMT only
	} {
		if got := llm.ParseRetryAfter(tc.in, now); got != tc.want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
		// llm parses dates itself (it links no net/http); it must read
		// them as net/http does.
		if want, err := http.ParseTime(tc.in); err == nil && want.After(now) && llm.ParseRetryAfter(tc.in, now) != want.Sub(now) {
			t.Errorf("ParseRetryAfter(%q) = %v, http.ParseTime says %v", tc.in, llm.ParseRetryAfter(tc.in, now), want.Sub(now))
		}
	}
}

func TestContextError(t *testing.T) {
	if llm.ContextError(context.Background(), "openai", errors.New("x")) != nil {
		t.Error("a live context gave an error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e := llm.ContextError(ctx, "openai", errors.New("read: connection reset"))
	if e.Kind != llm.ErrCancelled || !errors.Is(e, context.Canceled) || !errors.Is(e, llm.ErrCancelled) {
		t.Errorf("cancelled: %+v", e)
	}
	if want := "openai: cancelled: context canceled: read: connection reset"; e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
	dctx, dcancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer dcancel()
	e = llm.ContextError(dctx, "anthropic", nil)
	if e.Kind != llm.ErrTimeout || !errors.Is(e, context.DeadlineExceeded) || !e.Retryable() {
		t.Errorf("deadline: %+v", e)
	}
}

func TestUsageAdd(t *testing.T) {
	u := llm.Usage{InputTokens: 1, OutputTokens: 2, CachedInputTokens: 3, CacheWriteTokens: 4, ReasoningTokens: 5}
	if got, want := u.Add(u), (llm.Usage{InputTokens: 2, OutputTokens: 4, CachedInputTokens: 6, CacheWriteTokens: 8, ReasoningTokens: 10}); got != want {
		t.Errorf("Add = %+v, want %+v", got, want)
	}
}

func TestCloneCopiesReasoning(t *testing.T) {
	m := llm.Message{Role: llm.RoleAssistant, Reasoning: []llm.Reasoning{{Text: "think", Signature: "sig"}}}
	c := m.Clone()
	c.Reasoning[0].Text = "changed"
	if m.Reasoning[0].Text != "think" || m.ReasoningText() != "think" {
		t.Errorf("Clone shares Reasoning: %+v", m.Reasoning)
	}
}

// TestResponseAndMessagesClone: the copies share no slice with what they
// copied; nil stays nil.
func TestResponseAndMessagesClone(t *testing.T) {
	r := &llm.Response{Message: llm.AssistantMessage("a", llm.ToolCall{ID: "c", Name: "n", Arguments: "{}"}), FinishReason: llm.FinishToolCalls}
	c := r.Clone()
	c.Message.ToolCalls[0].Name = "changed"
	if r.Message.ToolCalls[0].Name != "n" || c.FinishReason != llm.FinishToolCalls {
		t.Errorf("Clone shares its calls or loses fields: %+v", r)
	}
	ms := []llm.Message{r.Message}
	cm := llm.CloneMessages(ms)
	cm[0].ToolCalls[0].Name = "changed"
	if ms[0].ToolCalls[0].Name != "n" {
		t.Error("llm.CloneMessages shares a message's calls")
	}
	if (*llm.Response)(nil).Clone() != nil || llm.CloneMessages(nil) != nil {
		t.Error("nil did not stay nil")
	}
}
