// Package faults makes a live provider misbehave on purpose, at the HTTP
// transport under the vendor's SDK, so that a test can show what an agent does
// when the provider rate-limits it, fails, cuts a stream short, sends broken
// tool-call arguments or answers too late.
//
// A Transport is an http.RoundTripper that counts the requests made through it
// and applies the Fault scripted for each (package faultspec describes the
// faults, as data a scenario file holds):
//
//	ft := &faults.Transport{Faults: []faults.Fault{
//		{Call: 1, HTTP: 429, RetryAfter: 2 * time.Second},
//		{Call: 3, Stream: faultspec.StreamCut, AfterBytes: 120},
//	}}
//	model, err := llm.Open(ctx, "openai/gpt-4.1-mini", &llm.OpenOptions{
//		HTTPClient: &http.Client{Transport: ft},
//	})
//
// Call numbers count HTTP requests to the provider, retries included: with
// the 429 above on call 1, the loop's retry is call 2. The fault is applied
// where the SDK cannot tell it from a real one (a status and an error body in
// the vendor's own shape, an SSE stream that stops or carries an error event),
// so the SDK's own retries must be off (the built-in providers turn them off)
// and the loop's retry policy is what a test observes. Applied tells which
// faults fired; what the loop then saw is recorded in the tape as it would be
// for a real failure, so a recording made under faults replays without them.
//
// The dialect of an error body or stream is told from the request path, by
// the wire format that claims it (llm/wire); a path none claims gets
// OpenAI's Chat Completions dialect.
package faults

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tapeloop/tapeloop/llm/faults/faultspec"
)

// Fault is one scripted misbehaviour, applied to one request; see
// faultspec.Fault, where the scenario format holds it without linking
// this package's HTTP code.
type Fault = faultspec.Fault

// Transport applies scripted faults to the requests made through it. The
// zero value forwards everything to http.DefaultTransport. It is safe for
// concurrent use; calls are numbered in the order RoundTrip is entered.
type Transport struct {
	// Base makes the real requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Faults are the faults to apply, by call number.
	Faults []Fault
	// Sleep waits d for a Latency fault and returns early with ctx's error
	// when ctx ends first. Nil means: a latency that would run past the
	// request's deadline fails at once with context.DeadlineExceeded (as
	// the wait would have, without waiting), a shorter one is waited for on
	// a real timer.
	Sleep func(ctx context.Context, d time.Duration) error

	mu      sync.Mutex
	calls   int
	applied []Fault
}

// Calls returns how many requests went through t.
func (t *Transport) Calls() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.calls
}

// markApplied records that f was applied.
func (t *Transport) markApplied(f Fault) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.applied = append(t.applied, f)
}

// Applied returns the faults applied so far, in call order: an HTTP or
// latency fault always applies; a stream or arguments fault only to a
// request the server answered with 200.
func (t *Transport) Applied() []Fault {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.applied)
}

// RoundTrip makes the request, or fails it, as the fault for its number says.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.mu.Lock()
	t.calls++
	n := t.calls
	var fault *Fault
	for i := range t.Faults {
		if t.Faults[i].Call == n {
			fault = &t.Faults[i]
			break
		}
	}
	t.mu.Unlock()
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if fault == nil {
		return base.RoundTrip(req)
	}
	d := dialectOf(req)
	switch {
	case fault.HTTP != 0:
		if req.Body != nil {
			req.Body.Close()
		}
		t.markApplied(*fault)
		return errorResponse(d, req, fault.HTTP, fault.RetryAfter), nil
	case fault.Latency != 0:
		sleep := t.Sleep
		if sleep == nil {
			sleep = realSleep
		}
		t.markApplied(*fault)
		if err := sleep(req.Context(), fault.Latency); err != nil {
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, err
		}
		return base.RoundTrip(req)
	}
	resp, err := base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		// Nothing to cut or break: the fault did not apply.
		return resp, err
	}
	defer t.markApplied(*fault)
	switch {
	case fault.Stream == faultspec.StreamCut:
		resp.Body = &cutBody{rc: resp.Body, left: fault.AfterBytes}
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	case fault.Stream == faultspec.StreamError:
		resp.Body = errorStream(d, resp.Body, cmp.Or(fault.Type, faultspec.TypeOverloaded), isSSE(resp))
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	case fault.Arguments == faultspec.ArgumentsTruncate:
		body, err := truncateArguments(d, resp)
		if err != nil {
			return nil, fmt.Errorf("faults: call %d: truncating arguments: %w", n, err)
		}
		resp.Body = body
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	}
	return resp, nil
}

func realSleep(ctx context.Context, d time.Duration) error {
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
		return context.DeadlineExceeded
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

func isSSE(resp *http.Response) bool {
	return strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
}
