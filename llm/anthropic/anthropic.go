package anthropic

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/internal/httpopts"
	"github.com/tapeloop/tapeloop/llm/internal/httpwatch"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// The provider's name, environment variables and defaults.
const (
	ProviderName = "anthropic"
	// KeyEnv is read when OpenOptions.APIKey is empty.
	KeyEnv = "ANTHROPIC_API_KEY"
	// BaseURLEnv is read when OpenOptions.BaseURL is empty.
	BaseURLEnv = "ANTHROPIC_BASE_URL"
	// DefaultBaseURL is the API's root when neither says otherwise.
	DefaultBaseURL = "https://api.anthropic.com"
	// DefaultMaxTokens bounds an answer when RequestOptions.MaxTokens is zero:
	// the Messages API requires a bound.
	DefaultMaxTokens = 4096
)

func init() {
	llm.Register(ProviderName, llm.ProviderFunc(func(_ context.Context, model string, opts *llm.OpenOptions) (llm.Model, error) {
		return New(model, opts)
	}))
}

// Model is a Messages API model. It is safe for concurrent use.
type Model struct {
	client anthropic.Client
	model  string
	opts   llm.OpenOptions
	// http is opts.HTTPClient as the *http.Client it is; nil means none.
	http *http.Client
	// key and base are the key and API root the client was made with,
	// which a bridged agent's forwarded request is sent with (forward.go).
	key, base string
	// schemas caches decoded tool input schemas by their raw text.
	schemas sync.Map // string -> anthropic.ToolInputSchemaParam
}

// New returns the model named model. A nil opts is the zero llm.OpenOptions.
// A missing key is an error naming ANTHROPIC_API_KEY, before any request. The
// SDK's own retries and environment defaults are off: only opts (and the two
// variables above) configure it, and the agent's retry policy decides.
func New(model string, opts *llm.OpenOptions) (*Model, error) {
	if opts == nil {
		opts = &llm.OpenOptions{}
	}
	key := cmp.Or(opts.APIKey, opts.Env(KeyEnv))
	if key == "" {
		return nil, fmt.Errorf("%w: set %s or pass a key", llm.ErrMissingKey, KeyEnv)
	}
	base := cmp.Or(opts.BaseURL, opts.Env(BaseURLEnv), DefaultBaseURL)
	ropts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(key),
		option.WithBaseURL(base),
		option.WithMaxRetries(0),
	}
	hc, err := httpopts.Client(ProviderName, opts)
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
	return &Model{client: anthropic.NewClient(ropts...), model: model, opts: *opts, http: hc, key: key, base: base}, nil
}

// Name returns "anthropic/MODEL".
func (m *Model) Name() string { return ProviderName + "/" + m.model }

// Generate makes one Messages call, streamed unless OpenOptions.NoStream;
// a bridged agent's call (ctx carries its request, wire.ForwardedOf) is
// the agent's own request forwarded. Every failure is an
// *llm.ProviderError.
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if fw := wire.ForwardedOf(ctx); fw != nil {
		return m.forward(ctx, fw)
	}
	params, err := m.params(ctx, req)
	if err != nil {
		return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: ProviderName, Message: err.Error(), Err: err}
	}
	x := &httpwatch.Exchange{}
	if m.opts.NoStream {
		msg, err := m.client.Messages.New(ctx, params, option.WithMiddleware(x.Middleware))
		if err != nil {
			return nil, m.classify(ctx, x, err)
		}
		return response(msg, nil), nil
	}
	return m.stream(ctx, params, x)
}

// stream makes a streamed call and accumulates it with the SDK's
// Message.Accumulate. A tool call's input is the concatenation of its
// input_json_delta fragments, kept here too because the accumulator
// empties input that is not valid JSON. A stream without message_stop is a
// malformed response; an error event is the error it names (overloaded,
// usually).
func (m *Model) stream(ctx context.Context, params anthropic.MessageNewParams, x *httpwatch.Exchange) (*llm.Response, error) {
	s := m.client.Messages.NewStreaming(ctx, params, option.WithMiddleware(x.Middleware))
	defer s.Close()
	var msg anthropic.Message
	inputs := map[int64][]byte{}
	events, stopped := 0, false
	for s.Next() {
		ev := s.Current()
		events++
		if err := msg.Accumulate(ev); err != nil {
			return nil, m.malformed("event %d (%s): %v", events, ev.Type, err)
		}
		switch ev.Type {
		case "content_block_delta":
			if ev.Delta.Type == "input_json_delta" {
				inputs[ev.Index] = append(inputs[ev.Index], ev.Delta.PartialJSON...)
			}
		case "message_stop":
			stopped = true
		}
	}
	if err := s.Err(); err != nil {
		return nil, m.classify(ctx, x, err)
	}
	if pe := llm.ContextError(ctx, ProviderName, nil); pe != nil {
		return nil, pe
	}
	if !stopped {
		return nil, m.malformed("the stream ended without message_stop after %d events", events)
	}
	return response(&msg, inputs), nil
}

// response maps an answer. inputs, when set, holds streamed tool inputs by
// content index.
func response(msg *anthropic.Message, inputs map[int64][]byte) *llm.Response {
	out := llm.Message{Role: llm.RoleAssistant}
	for i, b := range msg.Content {
		switch b.Type {
		case "text":
			out.Content += b.Text
		case "thinking":
			out.Reasoning = append(out.Reasoning, llm.Reasoning{Text: b.Thinking, Signature: b.Signature})
		case "redacted_thinking":
			out.Reasoning = append(out.Reasoning, llm.Reasoning{Redacted: b.Data})
		case "tool_use":
			args := string(b.Input)
			if in := inputs[int64(i)]; len(in) > 0 {
				args = string(in)
			}
			out.ToolCalls = append(out.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
		}
	}
	u := msg.Usage
	return &llm.Response{
		Message:      out,
		FinishReason: stopReason(msg.StopReason),
		Usage: llm.Usage{
			InputTokens:       int(u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens),
			OutputTokens:      int(u.OutputTokens),
			CachedInputTokens: int(u.CacheReadInputTokens),
			CacheWriteTokens:  int(u.CacheCreationInputTokens),
			ReasoningTokens:   int(u.OutputTokensDetails.ThinkingTokens),
			CacheReported:     llm.ReportedZeroCache(u.JSON.CacheReadInputTokens.Valid(), int(u.CacheReadInputTokens), int(u.CacheCreationInputTokens)),
		},
	}
}

// stopReason normalises a stop reason; unknown ones pass through.
func stopReason(r anthropic.StopReason) llm.FinishReason {
	switch r {
	case anthropic.StopReasonEndTurn, anthropic.StopReasonStopSequence:
		return llm.FinishStop
	case anthropic.StopReasonToolUse:
		return llm.FinishToolCalls
	case anthropic.StopReasonMaxTokens, anthropic.StopReasonModelContextWindowExceeded:
		return llm.FinishLength
	case anthropic.StopReasonRefusal:
		return llm.FinishFiltered
	case anthropic.StopReasonPauseTurn:
		return llm.FinishPause
	}
	return llm.FinishReason(r)
}

var _ llm.Model = (*Model)(nil)
