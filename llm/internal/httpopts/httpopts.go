// Package httpopts reads the HTTP settings of an llm.OpenOptions as the
// net/http types they hold. llm declares them without naming net/http, so
// that the vocabulary of model calls (and the scenario format above it)
// links no HTTP code; the providers, which do send requests, convert here.
package httpopts

import (
	"fmt"
	"net/http"

	"github.com/tapeloop/tapeloop/llm"
)

// Client returns opts.HTTPClient, which must be an *http.Client: nil when
// it is unset, a nil *http.Client or opts is nil (the SDK's default, as
// when the field was typed *http.Client), an error naming provider and
// the type given when it is something else.
func Client(provider string, opts *llm.OpenOptions) (*http.Client, error) {
	if opts == nil || opts.HTTPClient == nil {
		return nil, nil
	}
	c, ok := opts.HTTPClient.(*http.Client)
	if !ok {
		return nil, fmt.Errorf("%s: OpenOptions.HTTPClient must be an *http.Client, got %T", provider, opts.HTTPClient)
	}
	return c, nil
}

// Header returns opts.Headers as an http.Header (the same map); nil when
// there are none.
func Header(opts *llm.OpenOptions) http.Header {
	if opts == nil {
		return nil
	}
	return http.Header(opts.Headers)
}
