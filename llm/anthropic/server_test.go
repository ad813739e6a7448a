package anthropic_test

import (
	"cmp"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/anthropic"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// reply is one scripted HTTP answer: a status, a body read from testdata (or
// given), and headers.
type reply struct {
	status int
	file   string
	body   string
	header map[string]string
}

// request is what the server received.
type request struct {
	path   string
	header http.Header
	body   map[string]any
	raw    string
}

// wire is an httptest server that answers with its replies in order.
type wire struct {
	*httptest.Server
	t        testing.TB
	mu       sync.Mutex
	replies  []reply
	requests []request
}

func newWire(t testing.TB, replies ...reply) *wire {
	t.Helper()
	w := &wire{t: t, replies: replies}
	w.Server = httptest.NewServer(http.HandlerFunc(w.serve))
	t.Cleanup(w.Close)
	return w
}

func (w *wire) serve(rw http.ResponseWriter, r *http.Request) {
	raw := new(strings.Builder)
	_, _ = io.Copy(raw, r.Body)
	var body map[string]any
	_ = json.Unmarshal([]byte(raw.String()), &body)
	w.mu.Lock()
	n := len(w.requests)
	w.requests = append(w.requests, request{path: r.URL.Path, header: r.Header.Clone(), body: body, raw: raw.String()})
	w.mu.Unlock()
	if n >= len(w.replies) {
		http.Error(rw, "no reply scripted", http.StatusTeapot)
		return
	}
	rep := w.replies[n]
	data := []byte(rep.body)
	if rep.file != "" {
		var err error
		if data, err = os.ReadFile(filepath.Join("testdata", rep.file)); err != nil {
			http.Error(rw, err.Error(), http.StatusTeapot)
			return
		}
	}
	switch {
	case strings.HasSuffix(rep.file, ".sse"):
		rw.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	case strings.HasSuffix(rep.file, ".html"):
		rw.Header().Set("Content-Type", "text/html")
	default:
		rw.Header().Set("Content-Type", "application/json")
	}
	for k, v := range rep.header {
		rw.Header().Set(k, v)
	}
	rw.WriteHeader(cmp.Or(rep.status, http.StatusOK))
	_, _ = rw.Write(data)
}

func (w *wire) request(n int) request {
	w.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if n > len(w.requests) {
		w.t.Fatalf("the server got %d requests, want at least %d", len(w.requests), n)
	}
	return w.requests[n-1]
}

func (w *wire) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.requests)
}

// model opens claude-sonnet-4-5 against w.
func (w *wire) model(t testing.TB, mod func(*llm.OpenOptions)) llm.Model {
	t.Helper()
	opts := &llm.OpenOptions{APIKey: "sk-ant-test", BaseURL: w.URL, HTTPClient: w.Client(), Getenv: func(string) string { return "" }}
	if mod != nil {
		mod(opts)
	}
	m, err := llm.Open(t.Context(), "anthropic/claude-sonnet-4-5", opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
