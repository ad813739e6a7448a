package harness_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// internet stands in for a real host: a local server a tool reaches
// with http.Get, which a replay must not reach. It counts the requests
// that got to it.
func internet(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	hits := new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "sunny")
	}))
	t.Cleanup(srv.Close)
	return srv, hits
}

// forecastTool is a user's Go tool that asks the weather of the host at
// base with http.Get (http.DefaultClient), as a tool calling a real API
// does; its result is the answer, or the error.
func forecastTool(base string) *toolkit.Factory {
	return toolkit.NewFactory("forecast", "asks a weather service",
		func(name string, _ *toolkit.Env, _ struct{}) (tools.Tool, error) {
			return tools.New(tools.Spec{Name: name, Description: "The weather."},
				func(_ context.Context, _ struct{}) (*tools.Result, error) {
					resp, err := http.Get(base + "/forecast?key=s3cr3t")
					if err != nil {
						return tools.Success("no forecast: " + err.Error()), nil
					}
					defer resp.Body.Close()
					b, _ := io.ReadAll(resp.Body)
					return tools.Success(string(b)), nil
				})
		})
}

const forecastScenario = `format: tapeloop/v1
name: forecast
setup:
  tools: [forecast]
input: [{role: user, content: "Weather?"}]
tape:
  - response:
      tool_calls: [{id: call_1, name: forecast, arguments: {}}]
  - response: {content: done}
`

// writeForecast writes the forecast scenario into a new folder and
// returns its path.
func writeForecast(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "forecast.yaml")
	if err := os.WriteFile(path, []byte(forecastScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReplayRefusesDefaultTransport: a native scenario whose Go tool
// calls http.Get fails, naming the address and the scenario; the request
// never reaches the host, and the failure does not show the secret in
// its query (the tool's error is net/http's, which quotes the URL).
func TestReplayRefusesDefaultTransport(t *testing.T) {
	srv, hits := internet(t)
	host := strings.TrimPrefix(srv.URL, "http://")
	path := writeForecast(t)
	v := harness.Verify(context.Background(), path, &harness.VerifyOptions{Update: true, Tools: []*toolkit.Factory{forecastTool(srv.URL)}})
	if v.Err != nil {
		t.Fatal(v.Err)
	}
	if v.Passed() {
		t.Fatalf("the replay passed though its tool reached %s", host)
	}
	want := path + ": a request through http.DefaultTransport was refused during the replay: GET http://" + host + "/forecast (" + host + ")"
	if v.Failures[0].Error() != want {
		t.Errorf("first failure:\n got %s\nwant %s", v.Failures[0].Error(), want)
	}
	if hits.Load() != 0 {
		t.Errorf("the host got %d requests", hits.Load())
	}
	result := v.Outcome.Turns[0].Calls[0].Result()
	if !strings.Contains(result, `while replaying "forecast"`) || !strings.Contains(result, host) {
		t.Errorf("the tool's error names neither the scenario nor the host: %s", result)
	}
	for _, s := range v.Failures {
		if strings.Contains(s.Error(), "s3cr3t") {
			t.Errorf("a refusal shows the request's query: %s", s)
		}
	}
	// The tool's error, net/http's, quotes the URL; its result is in the
	// golden.
	if strings.Contains(result, "s3cr3t") || !strings.Contains(result, "/forecast?key=[REDACTED]") {
		t.Errorf("the tool's result does not hide the query's value: %s", result)
	}
	golden, err := os.ReadFile(scenario.GoldenPath(path))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(golden), "s3cr3t") {
		t.Errorf("the golden holds the request's query:\n%s", golden)
	}
}

// TestReplayAllowsHosts: AllowHosts lets a replay reach what it names,
// by host and port or by host alone; the rest is still refused.
func TestReplayAllowsHosts(t *testing.T) {
	srv, hits := internet(t)
	u, _ := url.Parse(srv.URL)
	for _, allow := range [][]string{{u.Host}, {u.Hostname()}, {"*"}} {
		path := writeForecast(t)
		v := harness.Verify(context.Background(), path, &harness.VerifyOptions{Update: true, AllowHosts: allow, Tools: []*toolkit.Factory{forecastTool(srv.URL)}})
		if !v.Passed() {
			t.Fatalf("AllowHosts %q: %v %v", allow, v.Err, v.Failures)
		}
		if got := v.Outcome.Turns[0].Calls[0].Result(); got != "sunny" {
			t.Errorf("AllowHosts %q: the tool got %q", allow, got)
		}
	}
	if hits.Load() != 3 {
		t.Errorf("the host got %d requests, want 3", hits.Load())
	}
	path := writeForecast(t)
	v := harness.Verify(context.Background(), path, &harness.VerifyOptions{Update: true, AllowHosts: []string{u.Hostname() + ":1"}, Tools: []*toolkit.Factory{forecastTool(srv.URL)}})
	if v.Passed() {
		t.Errorf("AllowHosts %s:1 let port %s through", u.Hostname(), u.Port())
	}
}

// TestReplayAllowsScenarioHosts: a scenario's setup.allow_hosts lets its
// replay reach what it names, as AllowHosts does, and adds to what the
// caller allows; another port is still refused.
func TestReplayAllowsScenarioHosts(t *testing.T) {
	srv, hits := internet(t)
	u, _ := url.Parse(srv.URL)
	withAllow := func(hosts string) string {
		path := filepath.Join(t.TempDir(), "forecast.yaml")
		text := strings.Replace(forecastScenario, "  tools: [forecast]\n", "  tools: [forecast]\n  allow_hosts: "+hosts+"\n", 1)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tools := []*toolkit.Factory{forecastTool(srv.URL)}
	v := harness.Verify(context.Background(), withAllow(`["`+u.Host+`"]`), &harness.VerifyOptions{Update: true, Tools: tools})
	if !v.Passed() || v.Outcome.Turns[0].Calls[0].Result() != "sunny" {
		t.Fatalf("setup.allow_hosts [%s]: %v %v", u.Host, v.Err, v.Failures)
	}
	v = harness.Verify(context.Background(), withAllow(`[example.com]`), &harness.VerifyOptions{Update: true, AllowHosts: []string{u.Hostname()}, Tools: tools})
	if !v.Passed() {
		t.Errorf("setup.allow_hosts [example.com] and AllowHosts %s: %v %v", u.Hostname(), v.Err, v.Failures)
	}
	if hits.Load() != 2 {
		t.Errorf("the host got %d requests, want 2", hits.Load())
	}
	v = harness.Verify(context.Background(), withAllow(`["`+u.Hostname()+`:1"]`), &harness.VerifyOptions{Update: true, Tools: tools})
	if v.Passed() || hits.Load() != 2 {
		t.Errorf("setup.allow_hosts [%s:1] let port %s through", u.Hostname(), u.Port())
	}
}

// TestLiveRunNotGuarded: a live run (RunOptions.Model set) is not a
// replay; its tools reach what they call.
func TestLiveRunNotGuarded(t *testing.T) {
	srv, hits := internet(t)
	s, err := scenario.Parse([]byte(forecastScenario), "forecast.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	// The tape's answers stand in for a live model.
	o, err := harness.Run(context.Background(), s, &harness.RunOptions{Model: replay.NewModel(s.ReplayTape(), nil), Tools: []*toolkit.Factory{forecastTool(srv.URL)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := o.Turns[0].Calls[0].Result(); got != "sunny" || len(o.Refused) != 0 || hits.Load() != 1 {
		t.Errorf("live: the tool got %q, refused %q, %d requests", got, o.Refused, hits.Load())
	}
}

// TestTestAllowHosts: harness.Test passes TestOptions.AllowHosts to each
// replay.
func TestTestAllowHosts(t *testing.T) {
	srv, hits := internet(t)
	path := writeForecast(t)
	harness.Test(t, filepath.Dir(path), &harness.TestOptions{Update: true, AllowHosts: []string{strings.TrimPrefix(srv.URL, "http://")}, Tools: []*toolkit.Factory{forecastTool(srv.URL)}})
	if hits.Load() != 1 {
		t.Errorf("the host got %d requests, want 1", hits.Load())
	}
}
