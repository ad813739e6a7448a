package bridge_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(parentEnv); path != "" {
		os.Exit(runParent(path))
	}
	dir, err := os.MkdirTemp("", "tapeloop-bridge-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cmdAgent.dir = dir
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		_ = os.RemoveAll(dir)
		os.Exit(code)
	}), goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start")) // started by its init (genai imports it)
}

const notesScenario = `format: tapeloop/v1
description: The notes agent appends a line to a file.
setup:
  agent: {go: notes}
  workspace:
    files:
      notes.txt: "hello\n"
input:
  - {role: user, content: "Append world to notes.txt."}
tape: []
expect:
  termination: final_text
  iterations: 3
  tool_calls: [read_file, write_file]
  calls:
    match: in_order
    list:
      - {name: write_file, arguments: {path: notes.txt, content: "hello\nworld\n"}}
  said:
    - {contains: "hello and world"}
  final: {contains: "hello and world"}
  files:
    notes.txt: "hello\nworld\n"
`

// notesScript is what the live model answers the notes agent.
func notesScript(first ...any) llm.Model {
	return script(append(first,
		call("call_1", "read_file", `{"path":"notes.txt"}`),
		call("call_2", "write_file", `{"path":"notes.txt","content":"hello\nworld\n"}`),
		text("Done: notes.txt now says hello and world."))...)
}

// record writes the scenario text into a scenarios folder, records it with
// agent against model, writes the tape in place, and returns the path.
func record(t *testing.T, text string, agent bridge.Agent, model llm.Model) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "scenarios")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "notes.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s := load(t, path)
	o, tape, err := bridge.Record(t.Context(), s, agent, model, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != "final_text" && o.Termination != "model_error" {
		t.Fatalf("the recording ended with %s: %s", o.Termination, o.Error)
	}
	if err := bridge.WriteRecording(path, tape); err != nil {
		t.Fatal(err)
	}
	if testing.Verbose() {
		b, _ := os.ReadFile(path)
		t.Logf("recorded %s:\n%s", path, b)
	}
	return path
}

func load(t *testing.T, path string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// verifyWith verifies s with harness.VerifyScenario, agent running it (a
// bridge.Runner under the Go agent's name it gives) and a program its
// setup.agent.command names.
func verifyWith(ctx context.Context, s *scenario.Scenario, agent bridge.Agent, opts *harness.VerifyOptions) *harness.Verdict {
	if opts == nil {
		opts = &harness.VerifyOptions{}
	}
	if a := s.Setup.Agent; a != nil && a.Go != "" {
		opts.Agents = map[string]harness.Runner{a.Go: bridge.Runner(agent, nil)}
	}
	opts.Commands = bridge.Runner(nil, nil)
	return harness.VerifyScenario(ctx, s, opts)
}

func verify(t *testing.T, path string, agent bridge.Agent, update bool) *harness.Verdict {
	t.Helper()
	v := verifyWith(t.Context(), load(t, path), agent, &harness.VerifyOptions{Update: update})
	if v.Err != nil {
		t.Fatal(v.Err)
	}
	return v
}

// TestRecordReplayFailClosed records the hand-written agent against a
// scripted model, replays it with the model gone (golden and expectations
// pass), and then fails closed when the agent changes what the model sees:
// its system prompt, a tool's description, or when it stops early.
func TestRecordReplayFailClosed(t *testing.T) {
	path := record(t, notesScenario, newNotesAgent().agentFunc(), notesScript())
	if v := verify(t, path, newNotesAgent().agentFunc(), true); !v.Passed() {
		t.Fatalf("the first replay fails:\n%s", fmt.Sprint(v.Failure()))
	}
	golden, err := os.ReadFile(scenario.GoldenPath(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"termination: final_text",
		"iterations: 3",
		"arguments: '{\"path\":\"notes.txt\"}'",
		"result: |\n          hello\n",
		"result: wrote 12 bytes",
		"+world",
		"final: 'Done: notes.txt now says hello and world.'",
		"notes.txt: |\n    hello\n    world\n",
	} {
		if !strings.Contains(string(golden), want) {
			t.Errorf("the golden does not hold %q:\n%s", want, golden)
		}
	}
	if v := verify(t, path, newNotesAgent().agentFunc(), false); !v.Passed() {
		t.Errorf("the replay fails:\n%s", fmt.Sprint(v.Failure()))
	}

	t.Run("system prompt changed", func(t *testing.T) {
		a := newNotesAgent()
		a.system = "You keep notes in files. Be brief."
		failsClosed(t, verify(t, path, a.agentFunc(), false), "notes.yaml:", "Be brief.")
	})
	t.Run("tool description changed", func(t *testing.T) {
		a := newNotesAgent()
		a.readDesc = "Read a text file."
		failsClosed(t, verify(t, path, a.agentFunc(), false), "notes.yaml:", "read_file")
	})
	t.Run("the agent stops early", func(t *testing.T) {
		stop := func(ctx context.Context, r *bridge.Run) error {
			_, err := r.HTTPClient.Post(r.OpenAIBaseURL+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
			return err
		}
		v := verify(t, path, stop, false)
		if v.Passed() {
			t.Fatal("a run that left the tape passed")
		}
	})
}

func failsClosed(t *testing.T, v *harness.Verdict, wants ...string) {
	t.Helper()
	if v.Passed() || !v.Outcome.Diverged {
		t.Fatalf("passed %v, diverged %v; want a failure", v.Passed(), v.Outcome.Diverged)
	}
	all := fmt.Sprint(v.Failure())
	if testing.Verbose() {
		t.Log(all)
	}
	for _, w := range wants {
		if !strings.Contains(all, w) {
			t.Errorf("the failures do not say %q:\n%s", w, all)
		}
	}
}

// TestRunNeedsARunner: harness.Run runs a bridged scenario only through the
// runner its options give for the scenario's agent; without one it is an
// error wrapping ErrBridged that names setup.agent's line and the agents
// it has, and a runner with no Go agent refuses a Go agent's scenario.
func TestRunNeedsARunner(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "scenarios")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "notes.yaml")
	if err := os.WriteFile(path, []byte(notesScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	s := load(t, path)
	for _, tc := range []struct {
		name string
		opts *harness.RunOptions
		want string
	}{
		{"no options", nil, `notes.yaml:4: setup.agent.go: no Go agent "notes" (none is registered)`},
		{"another agent", &harness.RunOptions{Agents: map[string]harness.Runner{"other": bridge.Runner(newNotesAgent().agentFunc(), nil)}},
			`notes.yaml:4: setup.agent.go: no Go agent "notes" (registered: other)`},
		{"programs only", &harness.RunOptions{Agents: map[string]harness.Runner{"notes": bridge.Runner(nil, nil)}},
			`notes.yaml:4: setup.agent.go: a bridged scenario (setup.agent) runs its own agent through package bridge: this runner has no Go agent to run "notes"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := harness.Run(t.Context(), s, tc.opts)
			if !errors.Is(err, scenario.ErrBridged) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("harness.Run: %v, want ErrBridged saying %q", err, tc.want)
			}
		})
	}
	o, err := harness.Run(t.Context(), s, &harness.RunOptions{Model: notesScript(),
		Agents: map[string]harness.Runner{"notes": bridge.Runner(newNotesAgent().agentFunc(), nil)}})
	if err != nil || o.Termination != "final_text" {
		t.Fatalf("harness.Run with the notes agent: %v, %+v", err, o)
	}
	if i := slices.IndexFunc(o.Workspace, func(f harness.FileState) bool { return f.Path == "notes.txt" }); i < 0 || o.Workspace[i].Content != "hello\nworld\n" {
		t.Errorf("the workspace after the run: %+v, want notes.txt with the agent's edit", o.Workspace)
	}
}

// TestHandlerRefusesAnOversizedBody: a request body over 64 MiB is refused
// with a 400 that says so, before anything decodes it; one of exactly
// 64 MiB is decoded (here it is no JSON request).
func TestHandlerRefusesAnOversizedBody(t *testing.T) {
	client := bridge.Client(bridge.Handler(notesScript(), nil))
	for _, size := range []int{64 << 20, 64<<20 + 1} {
		resp, err := client.Post(bridge.OpenAIBaseURL+"/chat/completions", "application/json", bytes.NewReader(bytes.Repeat([]byte(" "), size)))
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		refused := strings.Contains(string(msg), "the request body is larger than 67108864 bytes")
		if resp.StatusCode != http.StatusBadRequest || refused != (size > 64<<20) {
			t.Errorf("a body of %d bytes: %d %s", size, resp.StatusCode, msg)
		}
	}
}

// TestHandlerAnswersARequestOfExactly64MiB: a request body of exactly the
// 64 MiB limit is read whole and answered, whether its length is declared
// or not; a declared length far past the limit is not trusted.
func TestHandlerAnswersARequestOfExactly64MiB(t *testing.T) {
	client := bridge.Client(bridge.Handler(notesScript(), nil))
	req := `{"model": "m", "messages": [{"role": "user", "content": "Append world to notes.txt."}]}`
	body := append(bytes.Repeat([]byte(" "), 64<<20-len(req)), req...)
	for _, declared := range []int64{64 << 20, 1 << 40} {
		r, err := http.NewRequest(http.MethodPost, bridge.OpenAIBaseURL+"/chat/completions", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.ContentLength = declared
		resp, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("a 64 MiB request declared as %d bytes: %d %s", declared, resp.StatusCode, msg)
		}
	}
}

// TestClientRefusesAGet: the in-process client answers a request without a
// body (a GET) with the handler's 405, not a crash.
func TestClientRefusesAGet(t *testing.T) {
	resp, err := bridge.Client(bridge.Handler(notesScript(), nil)).Get(bridge.OpenAIBaseURL + "/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(string(msg), "the bridge answers POST model calls only") {
		t.Errorf("GET: %d %s", resp.StatusCode, msg)
	}
}

// TestClientStatusAsAServerSendsIt: the in-process client answers with the
// status an HTTP server sends for the same handler: once the body has
// begun, the status is 200, and a later WriteHeader cannot change it.
func TestClientStatusAsAServerSendsIt(t *testing.T) {
	late := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("partial answer"))
		w.WriteHeader(http.StatusInternalServerError)
	})
	srv := httptest.NewServer(late)
	defer srv.Close()
	for name, client := range map[string]*http.Client{"a server": srv.Client(), "bridge.Client": bridge.Client(late)} {
		resp, err := client.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != "partial answer" {
			t.Errorf("%s: %d %q, want 200 \"partial answer\"", name, resp.StatusCode, body)
		}
	}
}
