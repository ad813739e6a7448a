package clientproof

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
)

// StreamSubtest is the name of the subtest that proves a client streamed:
// a proof whose test name has it as one of its elements (TestX/stream,
// TestX/claude/stream) requires every answer the agent got while
// recording and replaying to be a stream, and every other proof requires
// none to be. docs/bridge.md's compatibility table names proofs by it
// (bridge/compat_test.go checks that a row saying it streams names one).
const StreamSubtest = "stream"

// wantsStream reports whether the test t is a StreamSubtest.
func wantsStream(t *testing.T) bool {
	return slices.Contains(strings.Split(t.Name(), "/"), StreamSubtest)
}

// answers counts the answers the bridge gave an agent: those with status
// 200, and of them the streamed ones.
type answers struct {
	mu           sync.Mutex
	ok, streamed int
}

// observe returns agent with its bridge (r.Handler, and r.HTTPClient
// answering through it) counting into a each successful answer and
// whether it came as a stream (an SSE or AWS event stream content type).
func (a *answers) observe(agent bridge.Agent) bridge.Agent {
	return func(ctx context.Context, r *bridge.Run) error {
		h := r.Handler
		counted := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			rec := &statusWriter{ResponseWriter: w, status: http.StatusOK}
			h.ServeHTTP(rec, req)
			if rec.status != http.StatusOK {
				return
			}
			ct := w.Header().Get("Content-Type")
			a.mu.Lock()
			defer a.mu.Unlock()
			a.ok++
			if strings.HasPrefix(ct, "text/event-stream") || strings.HasPrefix(ct, "application/vnd.amazon.eventstream") {
				a.streamed++
			}
		})
		r.Handler, r.HTTPClient = counted, bridge.Client(counted)
		return agent(ctx, r)
	}
}

// check fails t unless the agent got answers, all of them streams when t
// is a StreamSubtest and none of them otherwise.
func (a *answers) check(t *testing.T) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.ok == 0:
		t.Errorf("the bridge answered no model call with 200")
	case wantsStream(t) && a.streamed != a.ok:
		t.Errorf("%s is a %q subtest, but the bridge answered %d of the agent's %d model calls as a stream; want all", t.Name(), StreamSubtest, a.streamed, a.ok)
	case !wantsStream(t) && a.streamed != 0:
		t.Errorf("%s is not a %q subtest, but the bridge answered %d of the agent's %d model calls as a stream; name it %q", t.Name(), StreamSubtest, a.streamed, a.ok, StreamSubtest)
	}
}

// statusWriter is an http.ResponseWriter that keeps the status written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

// WriteHeader keeps status and writes it.
func (w *statusWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

// Unwrap is the writer below, for http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
