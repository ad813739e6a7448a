package bridge_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
)

// outside stands in for a real host an in-process agent reaches with
// http.DefaultClient; it counts the requests that got to it.
func outside(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// phoningAgent is the notes agent that first calls url with
// http.DefaultClient (a telemetry ping, a second SDK), ignoring the
// answer, as an agent that does not know it is replayed might.
func phoningAgent(url string) bridge.Agent {
	notes := newNotesAgent().agentFunc()
	return func(ctx context.Context, r *bridge.Run) error {
		if resp, err := http.Get(url + "/ping"); err == nil {
			resp.Body.Close()
		}
		return notes(ctx, r)
	}
}

// TestReplayRefusesAgentDefaultClient: an in-process agent's request
// through http.DefaultClient is refused in a replay, and the scenario
// fails naming the address, though the agent got over it; recording
// (live) lets it through.
func TestReplayRefusesAgentDefaultClient(t *testing.T) {
	srv, hits := outside(t)
	host := strings.TrimPrefix(srv.URL, "http://")
	path := record(t, notesScenario, phoningAgent(srv.URL), notesScript())
	if hits.Load() != 1 {
		t.Fatalf("the recording reached the host %d times, want 1", hits.Load())
	}
	v := verify(t, path, phoningAgent(srv.URL), true)
	want := path + ": a request through http.DefaultTransport was refused during the replay: GET http://" + host + "/ping (" + host + ")"
	if len(v.Failures) != 1 || v.Failures[0].Error() != want {
		t.Errorf("failures:\n%s\nwant\n%s", fmt.Sprint(v.Failure()), want)
	}
	if hits.Load() != 1 {
		t.Errorf("the replay reached the host")
	}
	// The runner called on its own (not through harness.Run) guards too.
	o, err := bridge.Runner(phoningAgent(srv.URL), nil)(t.Context(), load(t, path), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Refused) != 1 || !strings.Contains(o.Refused[0], host) {
		t.Errorf("the runner's outcome: refused %q", o.Refused)
	}
	allowed := verifyWith(t.Context(), load(t, path), phoningAgent(srv.URL), &harness.VerifyOptions{AllowHosts: []string{host}})
	if !allowed.Passed() {
		t.Errorf("allowed, the replay fails: %v %s", allowed.Err, fmt.Sprint(allowed.Failure()))
	}
	// The scenario's setup.allow_hosts allows it too, through harness and
	// through the runner on its own.
	s := load(t, path)
	s.Setup.AllowHosts = []string{host}
	if v := verifyWith(t.Context(), s, phoningAgent(srv.URL), nil); !v.Passed() {
		t.Errorf("setup.allow_hosts: the replay fails: %v", v.Failure())
	}
	o, err = bridge.Runner(phoningAgent(srv.URL), nil)(t.Context(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Refused) != 0 {
		t.Errorf("setup.allow_hosts: the runner refused %q", o.Refused)
	}
	if hits.Load() != 4 {
		t.Errorf("the host got %d requests, want 4 (the recording and three allowed replays)", hits.Load())
	}
}

// TestServeDialedThroughDefaultClient: an agent that serves the bridge on
// a listener (Run.Serve) and dials it with http.DefaultClient replays:
// the bridge's own listener is not refused while its run lasts, and is
// refused like any other address once the run has ended.
func TestServeDialedThroughDefaultClient(t *testing.T) {
	var served string
	dialing := func(ctx context.Context, r *bridge.Run) error {
		root, err := r.Serve()
		if err != nil {
			return err
		}
		served = root
		final, err := newNotesAgent().run(ctx, http.DefaultClient, root+"/v1", r.Dir, r.Input[len(r.Input)-1].Content)
		if err == nil {
			r.Final(final)
		}
		return err
	}
	path := record(t, notesScenario, dialing, notesScript())
	if v := verify(t, path, dialing, true); !v.Passed() {
		t.Fatalf("the replay fails: %v\n%s", v.Err, fmt.Sprint(v.Failure()))
	}
	// The next replay's agent dials the address the last one served.
	o, err := bridge.Runner(phoningAgent(served), nil)(t.Context(), load(t, path), nil)
	if err != nil {
		t.Fatal(err)
	}
	if host := strings.TrimPrefix(served, "http://"); len(o.Refused) != 1 || !strings.Contains(o.Refused[0], host) {
		t.Errorf("a request to %s after its run ended: refused %q, want it refused", host, o.Refused)
	}
}
