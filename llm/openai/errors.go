package openai

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/internal/httpwatch"
)

// classify turns a failed call into an *llm.ProviderError: the context's
// failure first, then an HTTP error status the exchange saw, then the
// SDK's errors (an error event in the stream, undecodable JSON, transport).
func (m *Model) classify(ctx context.Context, x *httpwatch.Exchange, err error) error {
	name := m.dialect.Name
	if pe := llm.ContextError(ctx, name, err); pe != nil {
		return pe
	}
	if pe := x.StatusError(name, err); pe != nil {
		return pe
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		msg := httpwatch.ErrorMessage(se.Event.Data)
		kind := llm.ErrOverloaded
		if l := strings.ToLower(string(se.Event.Data)); strings.Contains(l, "rate_limit") || strings.Contains(l, "rate limit") {
			kind = llm.ErrRateLimited
		}
		return &llm.ProviderError{Kind: kind, Provider: name, Message: "error event in the stream: " + msg, Err: err}
	}
	return httpwatch.TransportError(name, err)
}

// malformed returns the error of a response that is not a valid answer.
func (m *Model) malformed(format string, args ...any) error {
	return &llm.ProviderError{Kind: llm.ErrMalformed, Provider: m.dialect.Name, Message: fmt.Sprintf(format, args...)}
}
