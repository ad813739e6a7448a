package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/internal/httpopts"
	"github.com/tapeloop/tapeloop/llm/internal/httpwatch"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// Dialect is one way of reaching a Chat Completions server: the provider name
// it registers, where the server is by default and which key it needs.
type Dialect struct {
	// Name is the PROVIDER of "PROVIDER/MODEL", such as "ollama".
	Name string
	// BaseURL is the server's default root; empty means one must be given
	// (OpenOptions.BaseURL or BaseURLEnv).
	BaseURL string
	// BaseURLEnv names the variable that overrides BaseURL; empty means none.
	BaseURLEnv string
	// KeyEnv names the variable the key is read from; empty means the server
	// takes no key (one given in OpenOptions is still sent).
	KeyEnv string
	// KeyRequired makes a missing key an error naming KeyEnv.
	KeyRequired bool
	// LegacyMaxTokens sends RequestOptions.MaxTokens as max_tokens (what
	// compatible servers read) instead of OpenAI's max_completion_tokens.
	LegacyMaxTokens bool
}

// Dialects are the providers this package registers with llm.Register.
var Dialects = []Dialect{
	{Name: "openai", BaseURL: "https://api.openai.com/v1", BaseURLEnv: "OPENAI_BASE_URL", KeyEnv: "OPENAI_API_KEY", KeyRequired: true},
	{Name: "openai-compatible", BaseURLEnv: "OPENAI_BASE_URL", KeyEnv: "OPENAI_API_KEY", LegacyMaxTokens: true},
	{Name: "ollama", BaseURL: "http://localhost:11434/v1", LegacyMaxTokens: true},
	{Name: "vllm", BaseURL: "http://localhost:8000/v1", LegacyMaxTokens: true},
	{Name: "llamacpp", BaseURL: "http://localhost:8080/v1", LegacyMaxTokens: true},
}

func init() {
	for _, d := range Dialects {
		llm.Register(d.Name, llm.ProviderFunc(func(_ context.Context, model string, opts *llm.OpenOptions) (llm.Model, error) {
			return New(d, model, opts)
		}))
	}
}

// Model is a Chat Completions model. It is safe for concurrent use.
type Model struct {
	client  openai.Client
	dialect Dialect
	model   string
	// key and base are the key and API root the client was made with,
	// which a bridged agent's forwarded request is sent with (forward.go).
	key, base string
	opts      llm.OpenOptions
	// http is opts.HTTPClient as the *http.Client it is; nil means none.
	http *http.Client
	// schemas caches decoded tool parameter schemas by their raw text, so a
	// tool offered on every turn is decoded once.
	schemas sync.Map // string -> openai.FunctionParameters
}

// New returns the model named model on the server d describes. A nil opts is
// the zero llm.OpenOptions. A missing key (when d requires one) or base URL is
// an error, before any request. The SDK's own retries are off: the agent's
// retry policy decides.
func New(d Dialect, model string, opts *llm.OpenOptions) (*Model, error) {
	if opts == nil {
		opts = &llm.OpenOptions{}
	}
	key := opts.APIKey
	if key == "" && d.KeyEnv != "" {
		key = opts.Env(d.KeyEnv)
	}
	if key == "" && d.KeyRequired {
		return nil, fmt.Errorf("%w: set %s or pass a key", llm.ErrMissingKey, d.KeyEnv)
	}
	base := opts.BaseURL
	if base == "" && d.BaseURLEnv != "" {
		base = opts.Env(d.BaseURLEnv)
	}
	base = cmp.Or(base, d.BaseURL)
	if base == "" {
		return nil, fmt.Errorf("%w: %s needs a base URL (set %s or pass one)", llm.ErrMissingBaseURL, d.Name, d.BaseURLEnv)
	}
	ropts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithMaxRetries(0),
		// Never let the SDK send an organisation or project read from the
		// environment: only what OpenOptions says reaches the server.
		option.WithHeaderDel("OpenAI-Organization"), option.WithHeaderDel("OpenAI-Project"),
		option.WithAPIKey(key),
	}
	hc, err := httpopts.Client(d.Name, opts)
	if err != nil {
		return nil, err
	}
	if hc != nil {
		ropts = append(ropts, option.WithHTTPClient(hc))
	}
	for k, vs := range opts.Headers {
		for _, v := range vs {
			ropts = append(ropts, option.WithHeaderAdd(k, v))
		}
	}
	m := &Model{client: openai.NewClient(ropts...), dialect: d, model: model, key: key, base: base, opts: *opts, http: hc}
	return m, nil
}

// Name returns "PROVIDER/MODEL".
func (m *Model) Name() string { return m.dialect.Name + "/" + m.model }

// Generate makes one Chat Completions call, streamed unless
// OpenOptions.NoStream; a bridged agent's call (ctx carries its request,
// wire.ForwardedOf) is the agent's own request forwarded. Every failure
// is an *llm.ProviderError.
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if fw := wire.ForwardedOf(ctx); fw != nil {
		return m.forward(ctx, fw)
	}
	params, err := m.params(ctx, req)
	if err != nil {
		return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: m.dialect.Name, Message: err.Error(), Err: err}
	}
	if m.opts.NoStream {
		return m.generate(ctx, params)
	}
	return m.stream(ctx, params)
}

// generate makes a plain JSON call.
func (m *Model) generate(ctx context.Context, params openai.ChatCompletionNewParams) (*llm.Response, error) {
	x := &httpwatch.Exchange{}
	cc, err := m.client.Chat.Completions.New(ctx, params, option.WithMiddleware(x.Middleware))
	if err != nil {
		return nil, m.classify(ctx, x, err)
	}
	if len(cc.Choices) == 0 {
		return nil, m.malformed("the response has no choices")
	}
	ch := cc.Choices[0]
	resp := &llm.Response{
		Message:      m.message(ch.Message),
		FinishReason: finishReason(ch.FinishReason),
		Usage:        usage(cc.Usage),
	}
	if r, ok := extraString(ch.Message.JSON.ExtraFields); ok && r != "" {
		resp.Message.Reasoning = []llm.Reasoning{{Text: r}}
	}
	refusal(resp, ch.Message.Refusal)
	return resp, nil
}

// message maps a non-streamed assistant message.
func (m *Model) message(msg openai.ChatCompletionMessage) llm.Message {
	out := llm.Message{Role: llm.RoleAssistant, Content: msg.Content}
	for _, tc := range msg.ToolCalls {
		if tc.ID == "" && tc.Function.Name == "" && tc.Function.Arguments == "" {
			// A gap in the indices (Anthropic's compatible endpoint counts
			// its text block): no call was there.
			continue
		}
		args := tc.Function.Arguments
		if raw := tc.Function.JSON.Arguments.Raw(); !tc.Function.JSON.Arguments.Valid() && raw != "" && raw != "null" {
			// A server that sends the arguments as a JSON object instead
			// of a string: keep the object's text as it came.
			args = raw
		}
		out.ToolCalls = append(out.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args})
	}
	return out
}

// refusal puts a refusal's text where the model's answer would be and marks
// the response filtered.
func refusal(resp *llm.Response, text string) {
	if text == "" {
		return
	}
	if resp.Message.Content == "" {
		resp.Message.Content = text
	}
	resp.FinishReason = llm.FinishFiltered
}

// reasoningFields are the fields OpenAI-compatible servers put a model's
// thinking in (DeepSeek, xAI, vLLM and llama.cpp: reasoning_content;
// OpenRouter and newer vLLM: reasoning).
var reasoningFields = []string{"reasoning_content", "reasoning"}

// extraString returns the reasoning text among a message's or delta's extra
// fields, and whether one was a string.
func extraString[F interface{ Raw() string }](fields map[string]F) (string, bool) {
	for _, name := range reasoningFields {
		f, ok := fields[name]
		if !ok {
			continue
		}
		raw := f.Raw()
		if len(raw) < 2 || raw[0] != '"' {
			continue
		}
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil {
			return s, true
		}
	}
	return "", false
}

// finishReason normalises a finish reason; unknown ones pass through.
func finishReason(s string) llm.FinishReason {
	switch s {
	case "stop":
		return llm.FinishStop
	case "tool_calls", "function_call":
		return llm.FinishToolCalls
	case "length":
		return llm.FinishLength
	case "content_filter":
		return llm.FinishFiltered
	}
	return llm.FinishReason(s)
}

// usage maps the token counts.
func usage(u openai.CompletionUsage) llm.Usage {
	return llm.Usage{
		InputTokens:       int(u.PromptTokens),
		OutputTokens:      int(u.CompletionTokens),
		CachedInputTokens: int(u.PromptTokensDetails.CachedTokens),
		CacheWriteTokens:  int(u.PromptTokensDetails.CacheWriteTokens),
		ReasoningTokens:   int(u.CompletionTokensDetails.ReasoningTokens),
		CacheReported:     llm.ReportedZeroCache(u.PromptTokensDetails.JSON.CachedTokens.Valid(), int(u.PromptTokensDetails.CachedTokens), int(u.PromptTokensDetails.CacheWriteTokens)),
	}
}

var _ llm.Model = (*Model)(nil)
