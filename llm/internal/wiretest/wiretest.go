// Package wiretest is the scripted HTTP server of the provider packages'
// wire tests: it answers with hand-built fixtures from testdata, in order,
// and keeps every request it received.
package wiretest

import (
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/llm"
)

// APIKey is the key Open passes to the provider, for tests to look for in
// the requests' headers.
const APIKey = "sk-test"

// Reply is one scripted HTTP answer: a status, a body read from testdata (or
// given), and headers.
type Reply struct {
	Status int
	File   string
	Body   string
	Header map[string]string
}

// Request is what the server received: the path, the headers, the body
// decoded as a JSON object (nil when it is not one) and as text.
type Request struct {
	Path   string
	Header http.Header
	Body   map[string]any
	Raw    string
}

// Server is an httptest server that answers with its replies in order (a
// 418 once they run out) and keeps what it received.
type Server struct {
	*httptest.Server
	t        testing.TB
	mu       sync.Mutex
	replies  []Reply
	requests []Request
}

// New starts a Server, closed when t ends. A reply's File is read from the
// test's testdata folder; its Content-Type follows the file's extension
// (.sse: an event stream, .html: HTML, else JSON).
func New(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	w := &Server{t: t, replies: replies}
	w.Server = httptest.NewServer(http.HandlerFunc(w.serve))
	t.Cleanup(w.Close)
	return w
}

func (w *Server) serve(rw http.ResponseWriter, r *http.Request) {
	raw := new(strings.Builder)
	_, _ = io.Copy(raw, r.Body)
	var body map[string]any
	_ = json.Unmarshal([]byte(raw.String()), &body)
	w.mu.Lock()
	n := len(w.requests)
	w.requests = append(w.requests, Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Raw: raw.String()})
	w.mu.Unlock()
	if n >= len(w.replies) {
		http.Error(rw, "no reply scripted", http.StatusTeapot)
		return
	}
	rep := w.replies[n]
	data := []byte(rep.Body)
	if rep.File != "" {
		var err error
		if data, err = os.ReadFile(filepath.Join("testdata", rep.File)); err != nil {
			http.Error(rw, err.Error(), http.StatusTeapot)
			return
		}
	}
	switch {
	case strings.HasSuffix(rep.File, ".sse"):
		rw.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	case strings.HasSuffix(rep.File, ".html"):
		rw.Header().Set("Content-Type", "text/html")
	default:
		rw.Header().Set("Content-Type", "application/json")
	}
	for k, v := range rep.Header {
		rw.Header().Set(k, v)
	}
	rw.WriteHeader(cmp.Or(rep.Status, http.StatusOK))
	_, _ = rw.Write(data)
}

// Request returns the n-th request received (1-based), failing the test
// when there are fewer.
func (w *Server) Request(n int) Request {
	w.t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if n > len(w.requests) {
		w.t.Fatalf("the server got %d requests, want at least %d", len(w.requests), n)
	}
	return w.requests[n-1]
}

// Count returns how many requests the server received.
func (w *Server) Count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.requests)
}

// Open opens model (a "provider/name" string) against the server with key
// APIKey, base URL the server's URL followed by basePath, the server's
// client and an empty environment; mod, when not nil, changes the options
// first. It fails the test when llm.Open fails.
func (w *Server) Open(t testing.TB, model, basePath string, mod func(*llm.OpenOptions)) llm.Model {
	t.Helper()
	opts := &llm.OpenOptions{APIKey: APIKey, BaseURL: w.URL + basePath, HTTPClient: w.Client(), Getenv: func(string) string { return "" }}
	if mod != nil {
		mod(opts)
	}
	m, err := llm.Open(t.Context(), model, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// ErrorCase is one scripted error reply and the *llm.ProviderError it must
// give: its kind, its retry delay and, when Want is not empty, its text.
type ErrorCase struct {
	Name       string
	Reply      Reply
	Kind       llm.ErrorKind
	RetryAfter time.Duration
	Want       string
}

// CheckErrors runs each case, streaming and not, in a subtest: it opens
// model against a new Server that answers with the case's reply, sends
// req(), and checks the error and that the provider did not retry.
func CheckErrors(t *testing.T, model, basePath string, req func() *llm.Request, cases []ErrorCase) {
	for _, tc := range cases {
		for _, noStream := range []bool{false, true} {
			name := tc.Name + "/stream"
			if noStream {
				name = tc.Name + "/no_stream"
			}
			t.Run(name, func(t *testing.T) {
				w := New(t, tc.Reply)
				_, err := w.Open(t, model, basePath, func(o *llm.OpenOptions) { o.NoStream = noStream }).Generate(t.Context(), req())
				var pe *llm.ProviderError
				if !errors.As(err, &pe) {
					t.Fatalf("error %v is not a *llm.ProviderError", err)
				}
				if pe.Kind != tc.Kind || pe.StatusCode != tc.Reply.Status || pe.RetryAfter != tc.RetryAfter {
					t.Errorf("kind %s, status %d, retry after %v; want %s, %d, %v", pe.Kind, pe.StatusCode, pe.RetryAfter, tc.Kind, tc.Reply.Status, tc.RetryAfter)
				}
				if tc.Want != "" && err.Error() != tc.Want {
					t.Errorf("error\n got %s\nwant %s", err, tc.Want)
				}
				if w.Count() != 1 {
					t.Errorf("the SDK retried: %d requests", w.Count())
				}
			})
		}
	}
}

// CheckUnreachable opens model with its base URL on a local port that was
// just closed (basePath after it), sends req(), and checks that the call
// fails with llm.ErrUnreachable naming that URL, without retrying and
// without reaching the network.
func CheckUnreachable(t *testing.T, model, basePath string, req func() *llm.Request) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String() + basePath
	l.Close()
	for _, stream := range []bool{true, false} {
		m, err := llm.Open(t.Context(), model, &llm.OpenOptions{APIKey: APIKey, BaseURL: base, NoStream: !stream, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Generate(t.Context(), req())
		var pe *llm.ProviderError
		if !errors.As(err, &pe) || pe.Kind != llm.ErrUnreachable {
			t.Fatalf("stream %v: got %v; want an unreachable *llm.ProviderError", stream, err)
		}
		if !strings.Contains(pe.Message, "cannot reach the server at "+base) || !strings.Contains(pe.Message, "connection refused") {
			t.Errorf("stream %v: message %q; want the URL %s and the cause", stream, pe.Message, base)
		}
	}
}
