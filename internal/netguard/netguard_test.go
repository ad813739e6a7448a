package netguard

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// host is a local server standing in for the internet; it counts the
// requests that reach it.
type host struct {
	*httptest.Server
	mu   sync.Mutex
	hits int
}

func newHost(t *testing.T) *host {
	t.Helper()
	h := &host{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h.mu.Lock()
		h.hits++
		h.mu.Unlock()
		io.WriteString(w, "ok")
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *host) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits
}

// get sends GET url with ctx through http.DefaultClient.
func get(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// The guard is off without a replay, and off again after the last ends.
func TestNoReplayNoGuard(t *testing.T) {
	h := newHost(t)
	if err := get(context.Background(), h.URL); err != nil {
		t.Fatal(err)
	}
	_, r := Begin(context.Background(), "a", nil)
	if err := get(context.Background(), h.URL); !errors.Is(err, ErrRefused) {
		t.Fatalf("during a replay: %v", err)
	}
	r.End()
	if err := get(context.Background(), h.URL); err != nil {
		t.Fatalf("after the replay: %v", err)
	}
	if h.count() != 2 {
		t.Errorf("%d requests reached the host, want 2", h.count())
	}
}

// A request made with a replay's context is that replay's; one made
// without (http.Get) is every active replay's, and its error names them.
func TestRefusalsAttributed(t *testing.T) {
	h := newHost(t)
	addr := strings.TrimPrefix(h.URL, "http://")
	ctxA, a := Begin(context.Background(), "a", nil)
	_, b := Begin(context.Background(), "b", nil)
	errA := get(ctxA, h.URL+"/mine?key=s3cr3t")
	errNone := get(context.Background(), h.URL+"/whose")
	refusedA, refusedB := a.End(), b.End()
	wantA := []string{"GET " + h.URL + "/mine (" + addr + ")", "GET " + h.URL + "/whose (" + addr + ")"}
	if !slices.Equal(refusedA, wantA) {
		t.Errorf("a's refusals: %q, want %q", refusedA, wantA)
	}
	if want := wantA[1:]; !slices.Equal(refusedB, want) {
		t.Errorf("b's refusals: %q, want %q", refusedB, want)
	}
	if !strings.Contains(errA.Error(), `while replaying "a"`) || strings.Contains(errA.Error(), `"b"`) {
		t.Errorf("a's request: %v", errA)
	}
	if !strings.Contains(errNone.Error(), `while replaying "a", "b"`) {
		t.Errorf("nobody's request: %v", errNone)
	}
	if h.count() != 0 {
		t.Errorf("%d refused requests reached the host", h.count())
	}
	if again := a.End(); again != nil {
		t.Errorf("a second End: %q", again)
	}
}

// What passes during a replay: the replay's allowed hosts, a served
// address, a live request, and nothing else.
func TestAllowed(t *testing.T) {
	h := newHost(t)
	addr := strings.TrimPrefix(h.URL, "http://")
	ctx, r := Begin(context.Background(), "a", []string{"192.0.2.1", "localhost:1"})
	defer r.End()
	if err := get(ctx, h.URL); !errors.Is(err, ErrRefused) {
		t.Fatalf("not allowed: %v", err)
	}
	if err := get(Live(ctx), h.URL); err != nil {
		t.Errorf("live: %v", err)
	}
	stop := Serve(addr)
	if err := get(ctx, h.URL); err != nil {
		t.Errorf("served: %v", err)
	}
	stop()
	stop()
	if err := get(ctx, h.URL); !errors.Is(err, ErrRefused) {
		t.Errorf("no longer served: %v", err)
	}
	_, other := Begin(context.Background(), "b", []string{"127.0.0.1"})
	if err := get(context.Background(), h.URL); err != nil {
		t.Errorf("allowed by one of the active replays: %v", err)
	}
	if err := get(ctx, h.URL); !errors.Is(err, ErrRefused) {
		t.Errorf("a's own request allowed by b's hosts: %v", err)
	}
	other.End()
	if h.count() != 3 {
		t.Errorf("%d requests reached the host, want 3", h.count())
	}
}

// A replay begun inside another (harness.Run calling a bridge runner)
// is the outer one; a replay inside a live context is guarded.
func TestNestedAndLive(t *testing.T) {
	h := newHost(t)
	ctx, outer := Begin(Live(context.Background()), "outer", nil)
	inner, r := Begin(ctx, "inner", nil)
	if err := get(inner, h.URL); err == nil || !strings.Contains(err.Error(), `"outer"`) {
		t.Errorf("inner request: %v", err)
	}
	if got := r.End(); got != nil {
		t.Errorf("the inner End: %q", got)
	}
	if got := outer.End(); len(got) != 1 {
		t.Errorf("the outer End: %q", got)
	}
}

// A DefaultTransport that is not an *http.Transport is wrapped.
func TestWrapped(t *testing.T) {
	h := newHost(t)
	w := &wrapped{next: http.DefaultTransport}
	ctx, r := Begin(context.Background(), "a", nil)
	defer r.End()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, strings.NewReader("x"))
	if _, err := w.RoundTrip(req); !errors.Is(err, ErrRefused) {
		t.Errorf("wrapped: %v", err)
	}
}

// Replays in parallel, each with its own requests: each gets its own,
// under -race.
func TestParallelReplays(t *testing.T) {
	h := newHost(t)
	var wg sync.WaitGroup
	names := []string{"p0", "p1", "p2", "p3"}
	got := make([][]string, len(names))
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, r := Begin(context.Background(), name, nil)
			_ = get(ctx, h.URL+"/"+name)
			got[i] = r.End()
		}()
	}
	wg.Wait()
	for i, name := range names {
		if len(got[i]) != 1 || !strings.Contains(got[i][0], "/"+name+" ") {
			t.Errorf("%s: %q", name, got[i])
		}
	}
}

// TestRefusalHidesQueryAndUser: the error net/http gives a refused
// request quotes its URL (url.Error); the query's values and the user
// information, which may hold a key, are not in it, and neither is the
// fragment; the query's names, the host and the path are.
func TestRefusalHidesQueryAndUser(t *testing.T) {
	h := newHost(t)
	addr := strings.TrimPrefix(h.URL, "http://")
	ctx, r := Begin(context.Background(), "a", nil)
	defer r.End()
	for _, c := range []struct{ url, want string }{
		{"http://" + addr + "/v1/forecast?key=s3cr3t&city=Oslo#s3cr3t", `"http://` + addr + `/v1/forecast?key=[REDACTED]&city=[REDACTED]"`},
		{"http://bob:s3cr3t@" + addr + "/x", `"http://` + addr + `/x"`},
		{"http://s3cr3t@" + addr + "/x?s3cr3t", `"http://` + addr + `/x?[REDACTED]"`},
		{"http://" + addr + "/x?token=s3cr3t;v=s3cr3t&empty=", `"http://` + addr + `/x?token=[REDACTED]&empty=[REDACTED]"`},
	} {
		err := get(ctx, c.url)
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("GET %s: %v, want it refused", c.url, err)
		}
		if strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("GET %s: the error is\n%s\nwant it to quote %s and not the secret", c.url, err, c.want)
		}
	}
	if h.count() != 0 {
		t.Errorf("%d requests reached the host", h.count())
	}
}
