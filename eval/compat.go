package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tapeloop/tapeloop/llm"
)

// Until the provider registry lands in package llm: the seams eval needs
// from it, kept in one place.

var errModelName = errors.New(`model name must be "PROVIDER/MODEL"`)

// splitModel splits "PROVIDER/MODEL" at its first slash.
func splitModel(name string) (provider, model string, err error) {
	provider, model, ok := strings.Cut(name, "/")
	if !ok || provider == "" || model == "" {
		return "", "", fmt.Errorf("%w, got %q", errModelName, name)
	}
	return provider, model, nil
}

type retryableError interface{ Retryable() bool }

// retryable reports whether a failed model call may pass when made again.
func retryable(err error) bool {
	var r retryableError
	return errors.As(err, &r) && r.Retryable()
}

// rateLimited reports whether err is a rate limit (HTTP 429).
func rateLimited(err error) bool {
	return err != nil && strings.Contains(err.Error(), "rate_limited")
}

// retryAfter is the wait the server asked for; zero when it said none.
func retryAfter(err error) time.Duration { return 0 }

// defaultOpen opens a model when Options.Open is nil.
func defaultOpen(ctx context.Context, name string) (llm.Model, error) {
	return nil, errors.New("no provider is registered")
}
