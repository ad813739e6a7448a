package openai_test

import (
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/internal/wiretest"
	"github.com/tapeloop/tapeloop/tools"
)

// recordingTransport answers every request with the text stream fixture and
// records the URL asked for; nothing reaches the network.
type recordingTransport struct{ urls []string }

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rt.urls = append(rt.urls, r.URL.String())
	body, err := os.ReadFile("testdata/stream-text.sse")
	if err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(strings.NewReader(string(body))), Request: r}, nil
}

func TestOpenDefaultsAndKeys(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name, model string
		opts        llm.OpenOptions
		wantURL     string
	}{
		{"openai default", "openai/gpt-4.1-mini", llm.OpenOptions{Getenv: env("OPENAI_API_KEY", "sk-env")}, "https://api.openai.com/v1/chat/completions"},
		{"openai base URL from env", "openai/gpt-4.1-mini", llm.OpenOptions{Getenv: env("OPENAI_API_KEY", "k", "OPENAI_BASE_URL", "https://proxy.example/v1")}, "https://proxy.example/v1/chat/completions"},
		{"ollama", "ollama/qwen3:8b", llm.OpenOptions{Getenv: env()}, "http://localhost:11434/v1/chat/completions"},
		{"vllm", "vllm/Qwen/Qwen3-8B", llm.OpenOptions{Getenv: env()}, "http://localhost:8000/v1/chat/completions"},
		{"llamacpp", "llamacpp/any", llm.OpenOptions{Getenv: env()}, "http://localhost:8080/v1/chat/completions"},
		{"openai-compatible with base URL", "openai-compatible/meta-llama/llama-3.1-8b", llm.OpenOptions{BaseURL: "https://openrouter.example/api/v1", Getenv: env()}, "https://openrouter.example/api/v1/chat/completions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := &recordingTransport{}
			tc.opts.HTTPClient = &http.Client{Transport: rt}
			m, err := llm.Open(t.Context(), tc.model, &tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Generate(t.Context(), conversation()); err != nil {
				t.Fatal(err)
			}
			if len(rt.urls) != 1 || rt.urls[0] != tc.wantURL {
				t.Errorf("requests %v, want one to %s", rt.urls, tc.wantURL)
			}
		})
	}
	_, err := llm.Open(t.Context(), "openai/gpt-4.1-mini", &llm.OpenOptions{Getenv: env()})
	if want := "opening model openai/gpt-4.1-mini: missing API key: set OPENAI_API_KEY or pass a key"; err == nil || err.Error() != want || !errors.Is(err, llm.ErrMissingKey) {
		t.Errorf("missing key: %v\nwant %s", err, want)
	}
	_, err = llm.Open(t.Context(), "openai-compatible/x", &llm.OpenOptions{Getenv: env()})
	if want := "opening model openai-compatible/x: missing base URL: openai-compatible needs a base URL (set OPENAI_BASE_URL or pass one)"; err == nil || err.Error() != want || !errors.Is(err, llm.ErrMissingBaseURL) {
		t.Errorf("missing base URL: %v\nwant %s", err, want)
	}
}

// A 429 with Retry-After, then a success: the agent's policy retries on the
// run's virtual clock (no real sleep), and the SDK itself never retries.
func TestRateLimitThenSuccessThroughTheAgent(t *testing.T) {
	w := wiretest.New(t,
		wiretest.Reply{Status: 429, File: "error-429.json", Header: map[string]string{"Retry-After": "20"}},
		wiretest.Reply{File: "stream-text.sse"},
	)
	m := w.Open(t, "openai/gpt-4.1-mini", "/v1", nil)
	var events []agent.Event
	run, err := agent.Run(t.Context(), m, tools.NewRegistry(nil), []llm.Message{llm.UserMessage("hi")}, &agent.Options{
		Clock:      clock.NewVirtual(time.Time{}),
		ModelRetry: &agent.ModelRetryPolicy{Attempts: 3, Backoff: time.Second},
		Observer:   func(e agent.Event) { events = append(events, e) },
	})
	if err != nil || run.FinalText() != `notes.txt now reads "hello".` {
		t.Fatalf("run: %v, final %q", err, run.FinalText())
	}
	if w.Count() != 2 || run.ModelRetries != 1 {
		t.Errorf("%d requests, %d retries; want 2, 1", w.Count(), run.ModelRetries)
	}
	var retry *agent.Event
	for i := range events {
		if events[i].Kind == agent.EventModelRetry {
			retry = &events[i]
		}
	}
	if retry == nil || retry.Backoff != 20*time.Second || retry.ErrorKind != llm.ErrRateLimited || retry.Attempt != 1 {
		t.Fatalf("model_retry event %+v; want attempt 1, 20s, rate_limited", retry)
	}
	if end := events[len(events)-1].Time; end != clock.Epoch.Add(20*time.Second) {
		t.Errorf("run ended at %v on the virtual clock, want +20s", end)
	}
}

// TestOpenRefusesAnHTTPClientOfAnotherType: OpenOptions.HTTPClient holds an
// *http.Client (llm names no net/http type); anything else is an error
// when the model is opened, before any request, never a panic later.
func TestOpenRefusesAnHTTPClientOfAnotherType(t *testing.T) {
	_, err := llm.Open(t.Context(), "openai/gpt-4.1-mini", &llm.OpenOptions{APIKey: "sk-test", HTTPClient: http.DefaultTransport})
	if err == nil || !strings.Contains(err.Error(), "OpenOptions.HTTPClient must be an *http.Client, got *http.Transport") {
		t.Fatalf("Open with a transport as HTTPClient = %v", err)
	}
}
