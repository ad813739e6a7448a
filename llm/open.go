package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
)

// Errors of naming and opening a model; Open returns them wrapped with the name.
var (
	// ErrModelName: the name is not "PROVIDER/MODEL".
	ErrModelName = errors.New(`model name must be "PROVIDER/MODEL"`)
	// ErrUnknownProvider: no provider is registered under the name's prefix.
	ErrUnknownProvider = errors.New("unknown provider")
	// ErrMissingKey: the provider needs an API key and neither OpenOptions nor
	// the environment gave one. The message names the variable to set.
	ErrMissingKey = errors.New("missing API key")
	// ErrMissingBaseURL: the provider needs a base URL (openai-compatible) and
	// none was given.
	ErrMissingBaseURL = errors.New("missing base URL")
)

// OpenOptions configures a model opened with Open. A nil *OpenOptions is the
// zero value: keys and base URLs from the environment (the SDKs' own
// variables, such as OPENAI_API_KEY and ANTHROPIC_BASE_URL), the provider's
// default HTTP client, streaming on.
type OpenOptions struct {
	// APIKey is the key sent to the provider; empty means the provider's
	// environment variable (none for local servers).
	APIKey string
	// BaseURL is the API's root, such as "http://localhost:11434/v1"; empty
	// means the provider's environment variable, then its default.
	BaseURL string
	// HTTPClient makes the requests: an *http.Client; nil means the SDK's
	// default client. A provider refuses any other type when it opens a
	// model. The field names no net/http type so that package llm, which
	// every replay and the scenario format link, links no HTTP code
	// (docs/design.md).
	HTTPClient any
	// Headers are added to every request (an http.Header converts to it);
	// nil means none.
	Headers map[string][]string
	// ExtraBody sets extra top-level fields of every request body, for servers
	// with parameters of their own; nil means none. A key here replaces the
	// field the provider would send.
	ExtraBody map[string]any
	// Request holds the sampling and tool options sent with every call.
	Request RequestOptions
	// NoStream makes every call a plain JSON request; false streams (the
	// default), which survives long generations behind proxies that cut idle
	// connections.
	NoStream bool
	// Getenv reads the environment; nil means os.Getenv. Tests set it to
	// control keys and base URLs.
	Getenv func(key string) string
}

// RequestOptions are the per-call options a provider sends. The zero value
// sends none of them, so the server's defaults apply.
type RequestOptions struct {
	// Temperature; nil means the server's default.
	Temperature *float64
	// TopP; nil means the server's default.
	TopP *float64
	// MaxTokens bounds the answer; zero means the server's default (for
	// Anthropic, which requires one, the provider's default).
	MaxTokens int
	// Seed asks for reproducible sampling where supported; nil means none.
	Seed *int64
	// Stop sequences; nil means none.
	Stop []string
	// ToolChoice is "auto", "none", "required" or a tool's name; empty means
	// the server's default (auto when tools are offered).
	ToolChoice string
	// ParallelToolCalls allows (true) or forbids (false) several calls in one
	// answer; nil means the server's default.
	ParallelToolCalls *bool
}

// Env returns the value of the environment variable key as o reads it.
func (o *OpenOptions) Env(key string) string {
	if o != nil && o.Getenv != nil {
		return o.Getenv(key)
	}
	return os.Getenv(key)
}

// Provider opens models of one provider. Providers register themselves with
// Register from an init function, as database/sql drivers do.
type Provider interface {
	// Open returns the model named model (the part after "PROVIDER/").
	// opts is never nil. A missing key is an error wrapping ErrMissingKey,
	// returned before any request.
	Open(ctx context.Context, model string, opts *OpenOptions) (Model, error)
}

// ProviderFunc adapts a function to the Provider interface.
type ProviderFunc func(ctx context.Context, model string, opts *OpenOptions) (Model, error)

// Open calls f.
func (f ProviderFunc) Open(ctx context.Context, model string, opts *OpenOptions) (Model, error) {
	return f(ctx, model, opts)
}

var (
	providersMu sync.RWMutex
	providers   = map[string]Provider{}
)

// Register makes a provider available under name (the PROVIDER of
// "PROVIDER/MODEL"). It panics when name is empty or contains "/", when p is
// nil, or when name is already registered: these are programming errors.
func Register(name string, p Provider) {
	providersMu.Lock()
	defer providersMu.Unlock()
	if name == "" || strings.Contains(name, "/") {
		panic(fmt.Sprintf("llm: Register: invalid provider name %q", name))
	}
	if p == nil {
		panic("llm: Register: provider " + name + " is nil")
	}
	if _, dup := providers[name]; dup {
		panic("llm: Register called twice for provider " + name)
	}
	providers[name] = p
}

// Providers returns the names of the registered providers, sorted.
func Providers() []string {
	providersMu.RLock()
	defer providersMu.RUnlock()
	names := make([]string, 0, len(providers))
	for n := range providers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ParseModelName splits "PROVIDER/MODEL" at its first slash; the model part
// may contain more slashes ("openai-compatible/meta-llama/llama-3.1-8b").
func ParseModelName(name string) (provider, model string, err error) {
	provider, model, ok := strings.Cut(name, "/")
	if !ok || provider == "" || model == "" || strings.TrimSpace(name) != name {
		return "", "", fmt.Errorf("%w, got %q", ErrModelName, name)
	}
	return provider, model, nil
}

// Open returns the model named "PROVIDER/MODEL", such as
// "openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-5" or "ollama/qwen3:8b",
// from the provider registered under PROVIDER. A nil opts is the zero
// OpenOptions. Open makes no request.
func Open(ctx context.Context, name string, opts *OpenOptions) (Model, error) {
	provider, model, err := ParseModelName(name)
	if err != nil {
		return nil, fmt.Errorf("opening model: %w", err)
	}
	providersMu.RLock()
	p, ok := providers[provider]
	providersMu.RUnlock()
	if !ok {
		known := strings.Join(Providers(), ", ")
		return nil, fmt.Errorf("opening model %s: %w %q (registered: %s)", name, ErrUnknownProvider, provider, cmp.Or(known, "none"))
	}
	if opts == nil {
		opts = &OpenOptions{}
	}
	m, err := p.Open(ctx, model, opts)
	if err != nil {
		return nil, fmt.Errorf("opening model %s: %w", name, err)
	}
	return m, nil
}
