package anthropic

import (
	"context"
	"errors"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/internal/httpwatch"
)

// classify turns a failed call into an *llm.ProviderError: the context's
// failure first, then an HTTP error status, then an error event inside a
// successful stream (by its type: overloaded_error and api_error are
// overloaded, rate_limit_error rate-limited), then undecodable JSON and
// transport failures.
func (m *Model) classify(ctx context.Context, x *httpwatch.Exchange, err error) error {
	if pe := llm.ContextError(ctx, ProviderName, err); pe != nil {
		return pe
	}
	if pe := x.StatusError(ProviderName, err); pe != nil {
		return pe
	}
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		msg := httpwatch.ErrorMessage([]byte(ae.RawJSON()))
		kind := llm.ErrOverloaded
		switch ae.Type() {
		case "rate_limit_error":
			kind = llm.ErrRateLimited
		case "invalid_request_error":
			kind = llm.KindForStatus(400, msg)
		case "authentication_error", "permission_error":
			kind = llm.ErrAuth
		}
		return &llm.ProviderError{Kind: kind, Provider: ProviderName, Message: fmt.Sprintf("error event in the stream: %s: %s", ae.Type(), msg), Err: err}
	}
	return httpwatch.TransportError(ProviderName, err)
}

// malformed returns the error of a response that is not a valid answer.
func (m *Model) malformed(format string, args ...any) error {
	return &llm.ProviderError{Kind: llm.ErrMalformed, Provider: ProviderName, Message: fmt.Sprintf(format, args...)}
}
