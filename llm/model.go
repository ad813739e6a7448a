package llm

import (
	"context"
	"encoding/json"
	"errors"
)

// FinishReason says why the model stopped generating.
type FinishReason string

// The finish reasons a provider reports, normalised.
const (
	FinishStop      FinishReason = "stop"
	FinishToolCalls FinishReason = "tool_calls"
	FinishLength    FinishReason = "length"
	FinishFiltered  FinishReason = "content_filter"
	// FinishPause: the server paused a long turn (Anthropic's pause_turn); send
	// the conversation back as it is to let it continue.
	FinishPause FinishReason = "pause"
)

// Usage counts the tokens of one model call, or a sum of them. Zero means the
// provider did not report it.
type Usage struct {
	// InputTokens counts every input token, cached ones included (for
	// Anthropic: input, cache read and cache write tokens together).
	InputTokens int `json:"input_tokens,omitempty"`
	// OutputTokens counts every output token, reasoning ones included.
	OutputTokens int `json:"output_tokens,omitempty"`
	// CachedInputTokens is the part of InputTokens read from the provider's
	// prompt cache.
	CachedInputTokens int `json:"cached_input_tokens,omitempty"`
	// CacheWriteTokens is the part of InputTokens written to the prompt cache
	// (Anthropic's cache_creation_input_tokens).
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	// ReasoningTokens is the part of OutputTokens spent thinking.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// CacheReported says the provider stated its cache counts and both
	// CachedInputTokens and CacheWriteTokens are zero: the cache read and
	// wrote nothing, as opposed to counts it left out. A non-zero count is
	// a report of itself, so CacheReported is set only with zero counts
	// (ReportedZeroCache); false with zero counts means none was reported.
	CacheReported bool `json:"cache_reported,omitempty"`
}

// ReportedZeroCache returns whether stated cache counts of read and write
// tokens are a report of zero, for Usage.CacheReported: stated is whether
// the provider's usage held them.
func ReportedZeroCache(stated bool, read, write int) bool {
	return stated && read == 0 && write == 0
}

// CacheKnown reports whether u states what the provider's cache read and
// wrote: either count is non-zero, or the provider reported both zero.
func (u Usage) CacheKnown() bool {
	return u.CacheReported || u.CachedInputTokens > 0 || u.CacheWriteTokens > 0
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:       u.InputTokens + v.InputTokens,
		OutputTokens:      u.OutputTokens + v.OutputTokens,
		CachedInputTokens: u.CachedInputTokens + v.CachedInputTokens,
		CacheWriteTokens:  u.CacheWriteTokens + v.CacheWriteTokens,
		ReasoningTokens:   u.ReasoningTokens + v.ReasoningTokens,
		CacheReported:     u.CacheReported || v.CacheReported,
	}
}

// Request is one model call: the conversation so far and the tools on offer.
// A nil or empty Tools offers none.
type Request struct {
	Messages []Message        `json:"messages"`
	Tools    []ToolDefinition `json:"tools,omitempty"`
	// ResponseSchema, when set, asks for a final answer whose text is JSON valid
	// against this schema (a structured finish). Nil asks for free text.
	ResponseSchema json.RawMessage `json:"response_schema,omitempty"`
	// Params holds the request parameters that change the model's
	// behaviour, by their wire name (model, tool_choice, temperature,
	// max_tokens, stop, ...), each as compact JSON, as a bridged agent sent
	// them, or as tapeloop's loop sends a scenario's setup.loop.request
	// (RequestOptions.Params). Nil when none is known; a replay
	// tape pins them in its offered block.
	Params map[string]json.RawMessage `json:"params,omitempty"`
	// Cache holds where the request asks the provider to cache its prompt
	// up to (Anthropic's cache_control breakpoints, Bedrock's cachePoint
	// blocks), in the order of the prompt. They do not change the answer,
	// only what the provider's cache keeps. Nil means not known (a format
	// without breakpoints, tapeloop's own loop); empty non-nil means the
	// request marks none.
	Cache []CacheMark `json:"cache,omitempty"`
}

// CacheMark is one cache breakpoint: the prompt is cached up to and
// including the end of Tools[Index] when Tools is set, else of
// Messages[Index] (the leading system messages included).
type CacheMark struct {
	Tools bool `json:"tools,omitempty"`
	Index int  `json:"index"`
}

// ToolNames returns the names of the offered tools, in the order offered.
func (r *Request) ToolNames() []string {
	names := make([]string, len(r.Tools))
	for i, t := range r.Tools {
		names[i] = t.Name
	}
	return names
}

// LastMessage returns the last message of the request, and false when there is none.
func (r *Request) LastMessage() (Message, bool) {
	if len(r.Messages) == 0 {
		return Message{}, false
	}
	return r.Messages[len(r.Messages)-1], true
}

// MaxCallsPerResponse is the most tool calls one model response may hold. The
// agent loop ends a run whose model answers with more (or writes more as text),
// and a tape holding a response with more is refused when it is decoded:
// running a call costs about 10 KB, so a response of 100k calls, a few MB of
// text, took over a gigabyte.
const MaxCallsPerResponse = 1000

// ErrTooManyCalls is wrapped by the errors that refuse a response or a text
// holding more than MaxCallsPerResponse tool calls.
var ErrTooManyCalls = errors.New("too many tool calls")

// Response is what a model answered: one assistant message, why it stopped and
// what it cost.
type Response struct {
	Message      Message      `json:"message"`
	FinishReason FinishReason `json:"finish_reason,omitempty"`
	Usage        Usage        `json:"usage,omitempty"`
}

// Model is a language model that can call tools. Generate makes one call; it must
// not keep or change req. A Go error means the provider or transport failed; a
// model that answers badly still answers with a Response.
type Model interface {
	Generate(ctx context.Context, req *Request) (*Response, error)
}

// ModelFunc adapts a function to the Model interface.
type ModelFunc func(ctx context.Context, req *Request) (*Response, error)

// Generate calls f.
func (f ModelFunc) Generate(ctx context.Context, req *Request) (*Response, error) { return f(ctx, req) }
