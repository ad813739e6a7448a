package agent

import (
	"errors"
	"time"

	"github.com/tapeloop/tapeloop/llm"
)

// ModelRetryPolicy says when and how patiently a failed model call is made
// again. Every attempt is an event: a failed attempt that will be retried is a
// model_retry event, the one that ends the run a model_error event, and a
// success the model_response. Waits sleep on the run's clock, so a scripted
// 429 in a test takes no wall time.
type ModelRetryPolicy struct {
	// Attempts counts every try, the first included; values below 2 mean no
	// retry.
	Attempts int
	// Backoff is the wait before the first retry; each later wait doubles it.
	// Zero means retry at once (or after the server's Retry-After).
	Backoff time.Duration
	// MaxBackoff caps the doubling backoff; zero means no cap. It does not
	// shorten a server's Retry-After.
	MaxBackoff time.Duration
	// IgnoreRetryAfter makes the policy wait only its own backoff; false
	// waits at least as long as the server's Retry-After.
	IgnoreRetryAfter bool
	// MaxRetryAfter is the longest Retry-After the policy waits for: a server
	// asking for more ends the run with its error at once; zero means any.
	MaxRetryAfter time.Duration
	// Retryable says whether a failure may be retried; nil means llm.Retryable
	// (rate limits, overload, timeouts, malformed responses and an
	// unreachable server, as classified by the provider's
	// *llm.ProviderError), each kind no more often than llm.MaxRetries.
	Retryable func(error) bool
}

// attempts returns the number of tries the policy allows.
func (p *ModelRetryPolicy) attempts() int {
	if p == nil || p.Attempts < 1 {
		return 1
	}
	return p.Attempts
}

// wait returns how long to wait after failed attempt n (1-based) with err
// before trying again, and false when err must not be retried.
func (p *ModelRetryPolicy) wait(n int, err error) (time.Duration, bool) {
	if p == nil || n >= p.attempts() {
		return 0, false
	}
	retryable := llm.Retryable
	if p.Retryable != nil {
		retryable = p.Retryable
	}
	if !retryable(err) {
		return 0, false
	}
	// A kind's own cap (an unreachable server: once) holds under the
	// default predicate; a policy's own Retryable decides for itself.
	if capped := llm.MaxRetries(err); p.Retryable == nil && capped >= 0 && n > capped {
		return 0, false
	}
	d := (&RetryPolicy{Backoff: p.Backoff, MaxBackoff: p.MaxBackoff}).backoff(n)
	if p.IgnoreRetryAfter {
		return d, true
	}
	ra := llm.RetryAfter(err)
	if p.MaxRetryAfter > 0 && ra > p.MaxRetryAfter {
		return 0, false
	}
	return max(d, ra), true
}

// errorKind returns the kind of a provider error, or "" for other errors.
func errorKind(err error) llm.ErrorKind {
	var pe *llm.ProviderError
	if errors.As(err, &pe) {
		return pe.Kind
	}
	return ""
}
