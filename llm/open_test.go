package llm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// fakeOpened records what a registered test provider was asked to open.
type fakeOpened struct {
	model string
	opts  *llm.OpenOptions
}

var lastOpened fakeOpened

func init() {
	llm.Register("fake-open-test", llm.ProviderFunc(func(_ context.Context, model string, opts *llm.OpenOptions) (llm.Model, error) {
		lastOpened = fakeOpened{model, opts}
		if model == "needs-key" && opts.APIKey == "" && opts.Env("FAKE_API_KEY") == "" {
			return nil, fmt.Errorf("%w: set FAKE_API_KEY", llm.ErrMissingKey)
		}
		return llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) { return nil, nil }), nil
	}))
}

func TestParseModelName(t *testing.T) {
	for _, tc := range []struct{ name, provider, model string }{
		{"openai/gpt-4.1-mini", "openai", "gpt-4.1-mini"},
		{"ollama/qwen3:8b", "ollama", "qwen3:8b"},
		{"openai-compatible/meta-llama/llama-3.1-8b", "openai-compatible", "meta-llama/llama-3.1-8b"},
	} {
		p, m, err := llm.ParseModelName(tc.name)
		if err != nil || p != tc.provider || m != tc.model {
			t.Errorf("ParseModelName(%q) = %q, %q, %v; want %q, %q", tc.name, p, m, err, tc.provider, tc.model)
		}
	}
	for _, bad := range []string{"", "gpt-4", "/gpt-4", "openai/", " openai/gpt-4"} {
		if _, _, err := llm.ParseModelName(bad); !errors.Is(err, llm.ErrModelName) {
			t.Errorf("ParseModelName(%q) error = %v, want ErrModelName", bad, err)
		}
	}
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	m, err := llm.Open(ctx, "fake-open-test/some/model", nil)
	if err != nil || m == nil {
		t.Fatalf("Open: %v", err)
	}
	if lastOpened.model != "some/model" || lastOpened.opts == nil {
		t.Errorf("provider got model %q, opts %v; want some/model and non-nil options", lastOpened.model, lastOpened.opts)
	}

	_, err = llm.Open(ctx, "nosuch/model", nil)
	if !errors.Is(err, llm.ErrUnknownProvider) || !strings.Contains(err.Error(), `"nosuch"`) || !strings.Contains(err.Error(), "fake-open-test") {
		t.Errorf("unknown provider error = %v; want ErrUnknownProvider naming it and the registered ones", err)
	}

	_, err = llm.Open(ctx, "fake-open-test/needs-key", &llm.OpenOptions{Getenv: func(string) string { return "" }})
	if want := "opening model fake-open-test/needs-key: missing API key: set FAKE_API_KEY"; err == nil || err.Error() != want || !errors.Is(err, llm.ErrMissingKey) {
		t.Errorf("missing key error = %v, want %q", err, want)
	}
	_, err = llm.Open(ctx, "fake-open-test/needs-key", &llm.OpenOptions{Getenv: func(k string) string { return map[string]string{"FAKE_API_KEY": "k"}[k] }})
	if err != nil {
		t.Errorf("key from Getenv: %v", err)
	}
}

func TestRegisterPanicsOnMisuse(t *testing.T) {
	p := llm.ProviderFunc(func(context.Context, string, *llm.OpenOptions) (llm.Model, error) { return nil, nil })
	for _, tc := range []struct {
		name string
		p    llm.Provider
		want string
	}{
		{"fake-open-test", p, "llm: Register called twice for provider fake-open-test"},
		{"a/b", p, `llm: Register: invalid provider name "a/b"`},
		{"", p, `llm: Register: invalid provider name ""`},
		{"nilprov", nil, "llm: Register: provider nilprov is nil"},
	} {
		func() {
			defer func() {
				if got := fmt.Sprint(recover()); got != tc.want {
					t.Errorf("Register(%q) panic = %q, want %q", tc.name, got, tc.want)
				}
			}()
			llm.Register(tc.name, tc.p)
		}()
	}
}
