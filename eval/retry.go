package eval

import (
	"errors"
	"time"

	"github.com/tapeloop/tapeloop/llm"
)

// retryable reports whether a failed model call may pass when made again:
// the provider classified it as a rate limit, overload, timeout, malformed
// response or unreachable server (llm.Retryable).
func retryable(err error) bool { return llm.Retryable(err) }

// outOfRetries reports whether failed attempt number attempt (from 1) has
// used the retries err's kind allows of its own (llm.MaxRetries: one for an
// unreachable server), whatever --retries would allow.
func outOfRetries(err error, attempt int) bool {
	capped := llm.MaxRetries(err)
	return capped >= 0 && attempt > capped
}

// rateLimited reports whether err is a rate limit (HTTP 429), which pauses
// every trial of the provider.
func rateLimited(err error) bool { return errors.Is(err, llm.ErrRateLimited) }

// retryAfter is the wait the server asked for; zero when it said none.
func retryAfter(err error) time.Duration { return llm.RetryAfter(err) }

// splitModel splits "PROVIDER/MODEL" (llm.ParseModelName).
func splitModel(name string) (provider, model string, err error) {
	return llm.ParseModelName(name)
}
