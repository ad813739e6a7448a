// Package netguard refuses, while a replay runs, every request sent
// through http.DefaultTransport: the transport of http.DefaultClient, of
// http.Get and of every client that does not name its own, and of the
// transports cloned from it after this package's init (the OpenAI and
// Anthropic Go SDKs clone it for their default clients). A replay must
// reach nothing but its tape; a tool or an in-process agent that calls a
// real host anyway is refused at once, and the replay is told, so that
// its scenario fails naming the address:
//
//	ctx, r := netguard.Begin(ctx, s.Name, opts.AllowHosts)
//	o := run(ctx) // requests through http.DefaultTransport are refused
//	refused := r.End()
//
// The guard is installed once, when the package is initialised (no other
// goroutine of the program runs yet, so the process global is changed
// without a race), and is inert while no replay is active: one atomic
// load per request. It is the transport's Proxy hook, which net/http
// calls for every request before it looks for a connection, so
// http.DefaultTransport stays an *http.Transport for the code that
// asserts it. Requests pass whatever is active when their context is
// marked Live (tapeloop's own traffic to a live model) or their address
// is one of Serve's (the bridge's own listener). A refused request's URL
// loses its user information, its fragment and its query's values (see
// Redacted) before net/http quotes it in the caller's error.
//
// It cannot see a client with a Transport of its own (not cloned from
// http.DefaultTransport after init), a clone whose Proxy was replaced,
// an HTTP/2 request over a connection pooled before the replay began, or
// a raw net.Dial; the sandbox of a command agent covers those for
// programs (package sandbox).
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// ErrRefused is wrapped by the error a request gets when the guard
// refuses it: it was sent through http.DefaultTransport during a replay,
// to an address the replay does not allow.
var ErrRefused = errors.New("tapeloop refused a request through http.DefaultTransport during a replay")

// Replay is one replay the guard refuses requests for, from Begin to End.
// Its methods are safe for concurrent use.
type Replay struct {
	name  string
	allow []string
	mu    sync.Mutex
	// refused are the requests refused for this replay, in order, each
	// once.
	refused []string
	ended   bool
}

// The guard's state: the active replays and the served addresses.
var (
	mu     sync.Mutex
	active = map[*Replay]bool{}
	served = map[string]int{}
	// count is len(active), read without mu on every request.
	count atomic.Int32
	// idle closes the idle connections of http.DefaultTransport's own
	// pool when the first replay begins, so that none made before it is
	// reused past the guard; nil when the guard wraps another transport.
	idle func()
)

type replayKey struct{}
type liveKey struct{}

func init() { install() }

// install puts the guard on http.DefaultTransport: its Proxy hook when it
// is an *http.Transport (the hook then calls the Proxy it had), else a
// wrapper replacing it.
func install() {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		next := t.Proxy
		t.Proxy = func(req *http.Request) (*url.URL, error) {
			if err := check(req); err != nil {
				return nil, err
			}
			if next == nil {
				return nil, nil
			}
			return next(req)
		}
		idle = t.CloseIdleConnections
		return
	}
	http.DefaultTransport = &wrapped{next: http.DefaultTransport}
}

// wrapped guards a DefaultTransport that is not an *http.Transport.
type wrapped struct{ next http.RoundTripper }

// RoundTrip refuses req during a replay, or sends it with next.
func (w *wrapped) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := check(req); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	return w.next.RoundTrip(req)
}

// Begin makes name's replay active until End: every request through
// http.DefaultTransport whose address is not allowed is refused, and
// reported to the replay when its context is the returned one (or one
// made from it), else to every replay active then, since nothing tells
// whose it is. allow lists what may be reached anyway: a host ("localhost",
// any port), a host and port ("127.0.0.1:8931"), or "*" for everything.
// A ctx that already belongs to an active replay is returned as it is,
// with a Replay whose End reports nothing: the outer one reports.
func Begin(ctx context.Context, name string, allow []string) (context.Context, *Replay) {
	if r, ok := ctx.Value(replayKey{}).(*Replay); ok && r.isActive() {
		return ctx, &Replay{name: name, ended: true}
	}
	r := &Replay{name: name, allow: allow}
	mu.Lock()
	active[r] = true
	first := count.Add(1) == 1
	mu.Unlock()
	if first && idle != nil {
		idle()
	}
	// A replay inside a live run (an evaluation replaying what it saved)
	// is guarded: the live mark stops here.
	return context.WithValue(context.WithValue(ctx, liveKey{}, false), replayKey{}, r), r
}

// isActive reports whether r is between Begin and End.
func (r *Replay) isActive() bool {
	mu.Lock()
	defer mu.Unlock()
	return active[r]
}

// End ends the replay and returns the requests refused for it, in the
// order they were made, each once: "GET http://127.0.0.1:8080/weather
// (127.0.0.1:8080)". Nil means none; a second call returns nil.
func (r *Replay) End() []string {
	mu.Lock()
	if active[r] {
		delete(active, r)
		count.Add(-1)
	}
	mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return nil
	}
	r.ended = true
	return r.refused
}

// note records the refused request what for r.
func (r *Replay) note(what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.ended && !slices.Contains(r.refused, what) {
		r.refused = append(r.refused, what)
	}
}

// allows reports whether r lets a request reach host:port.
func (r *Replay) allows(host, port string) bool {
	for _, a := range r.allow {
		if a == "*" {
			return true
		}
		h, p, err := net.SplitHostPort(a)
		if err != nil {
			h, p = a, ""
		}
		if strings.EqualFold(strings.Trim(h, "[]"), host) && (p == "" || p == port) {
			return true
		}
	}
	return false
}

// Live returns ctx marked as tapeloop's own traffic to a live model (a
// recording forwarding to the vendor, an evaluation's model calls):
// requests made with it pass the guard whatever replay is active.
func Live(ctx context.Context) context.Context { return context.WithValue(ctx, liveKey{}, true) }

// Serve lets every request reach addr (a listener's "127.0.0.1:PORT")
// until the returned stop is called: the bridge's own listener, which an
// agent in this process dials.
func Serve(addr string) (stop func()) {
	mu.Lock()
	served[addr]++
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			if served[addr]--; served[addr] == 0 {
				delete(served, addr)
			}
		})
	}
}

// check returns the error that refuses req, or nil when it may go.
func check(req *http.Request) error {
	if count.Load() == 0 || req.URL == nil {
		return nil
	}
	ctx := req.Context()
	if live, _ := ctx.Value(liveKey{}).(bool); live {
		return nil
	}
	host, port := strings.ToLower(req.URL.Hostname()), req.URL.Port()
	if port == "" {
		port = "80"
		if req.URL.Scheme == "https" {
			port = "443"
		}
	}
	addr := net.JoinHostPort(host, port)
	mu.Lock()
	if served[addr] > 0 {
		mu.Unlock()
		return nil
	}
	var blamed []*Replay
	if r, ok := ctx.Value(replayKey{}).(*Replay); ok && active[r] {
		blamed = []*Replay{r}
	} else {
		for r := range active {
			blamed = append(blamed, r)
		}
	}
	mu.Unlock()
	if len(blamed) == 0 {
		return nil // the request's replay has ended, and no other runs
	}
	for _, r := range blamed {
		if r.allows(host, port) {
			return nil
		}
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	what := fmt.Sprintf("%s %s (%s)", method, shown(req.URL), addr)
	names := make([]string, len(blamed))
	for i, r := range blamed {
		r.note(what)
		names[i] = fmt.Sprintf("%q", r.name)
	}
	slices.Sort(names)
	hide(req.URL)
	return fmt.Errorf("%w: %s, while replaying %s", ErrRefused, what, strings.Join(names, ", "))
}

// Redacted stands for each value of a refused request's query.
const Redacted = "[REDACTED]"

// hide removes from u, the URL of a refused request, what may hold a
// credential: the user information and the fragment go, and each value
// of the query (a name without one, whole) becomes Redacted. The request
// is never sent; net/http's client quotes its URL in the error it returns
// (url.Error), which is built from u after the refusal, and that error
// reaches tool results, goldens and logs.
func hide(u *url.URL) {
	u.User = nil
	u.Fragment, u.RawFragment = "", ""
	if u.RawQuery == "" {
		return
	}
	parts := strings.Split(u.RawQuery, "&")
	for i, p := range parts {
		if name, _, ok := strings.Cut(p, "="); ok {
			parts[i] = name + "=" + Redacted
		} else if p != "" {
			parts[i] = Redacted
		}
	}
	u.RawQuery = strings.Join(parts, "&")
}

// shown is u as a refusal names it: scheme, host and path, without the
// user, the query and the fragment, which may hold a credential.
func shown(u *url.URL) string {
	v := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	return v.String()
}
