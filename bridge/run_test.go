package bridge_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
)

// TestAgentReportsItsEndState: what a bridged agent reports with Run.State
// is the golden's state and what expect.state checks.
func TestAgentReportsItsEndState(t *testing.T) {
	withState := func(lines int) bridge.Agent {
		return func(ctx context.Context, r *bridge.Run) error {
			if err := newNotesAgent().agentFunc()(ctx, r); err != nil {
				return err
			}
			r.State("notes", map[string]any{"lines": lines})
			r.State("saved", true)
			return nil
		}
	}
	text := notesScenario + "  state: {/notes/lines: 2, /saved: true}\n"
	path := record(t, text, withState(2), notesScript())
	if v := verify(t, path, withState(2), true); !v.Passed() {
		t.Fatalf("the replay fails:\n%s", fmt.Sprint(v.Failure()))
	}
	golden, err := os.ReadFile(scenario.GoldenPath(path))
	if err != nil {
		t.Fatal(err)
	}
	if want := "state:\n  notes:\n    lines: 2\n  saved: true\n"; !strings.Contains(string(golden), want) {
		t.Errorf("the golden does not hold %q:\n%s", want, golden)
	}
	v := verify(t, path, withState(3), false)
	if v.Passed() || !strings.Contains(fmt.Sprint(v.Failure()), "expect.state: expected /notes/lines to be 2, found 3") {
		t.Errorf("another reported state passed or failed otherwise:\n%s", fmt.Sprint(v.Failure()))
	}
}

// TestAgentStateNotJSON: a state the agent reports that does not encode
// as JSON (here an infinite number) fails the run, naming the scenario
// and the state's key, rather than reaching the golden.
func TestAgentStateNotJSON(t *testing.T) {
	s := load(t, writeScenario(t, notesScenario))
	agent := func(ctx context.Context, r *bridge.Run) error {
		if err := newNotesAgent().agentFunc()(ctx, r); err != nil {
			return err
		}
		r.State("ratio", math.Inf(1))
		return nil
	}
	o, err := bridge.Runner(agent, nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err == nil || !strings.Contains(err.Error(), s.Path+": state.ratio: ") || o != nil {
		t.Errorf("a state that is not JSON: outcome %v, error %v; want an error naming %s and state.ratio", o, err, s.Path)
	}
}

// TestHandlerRefusesAnUnknownPath: a request to a path no wire format
// claims gets 404 with a message naming the method, the path and the
// formats served, and that reason fails the scenario in the test's own
// output (not only in an HTTP body the agent's SDK may not print), on
// record and on replay alike.
func TestHandlerRefusesAnUnknownPath(t *testing.T) {
	var code int
	var body string
	agent := func(ctx context.Context, r *bridge.Run) error {
		w := httptest.NewRecorder()
		r.Handler.ServeHTTP(w, httptest.NewRequest(http.MethodPost, r.OpenAIBaseURL+"/embeddings", strings.NewReader(`{"input": "notes"}`)))
		code, body = w.Code, w.Body.String()
		return newNotesAgent().agentFunc()(ctx, r)
	}
	const reason = "no wire format serves POST /v1/embeddings; served: POST .../chat/completions (openai), POST .../messages (anthropic)"
	s := load(t, writeScenario(t, notesScenario))
	o, _, err := bridge.Record(t.Context(), s, agent, notesScript(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if code != http.StatusNotFound || !strings.Contains(body, reason) {
		t.Errorf("recording: /v1/embeddings got %d %s, want 404 holding %q", code, body, reason)
	}
	if o.Termination != "model_error" || !strings.Contains(o.Error, "the bridge refused a request: bridge: unknown API path: "+reason) {
		t.Errorf("the recording ended with %s (%s), want model_error naming the refusal", o.Termination, o.Error)
	}
	path := record(t, notesScenario, newNotesAgent().agentFunc(), notesScript())
	if v := verify(t, path, newNotesAgent().agentFunc(), true); !v.Passed() {
		t.Fatalf("the replay without the stray request fails:\n%s", fmt.Sprint(v.Failure()))
	}
	v := verify(t, path, agent, false)
	if v.Passed() || !strings.Contains(fmt.Sprint(v.Failure()), reason) {
		t.Errorf("the replay passed or failed without the reason:\n%s", fmt.Sprint(v.Failure()))
	}
}

// TestRunnerRefusesANativeScenario: a Runner given a scenario without
// setup.agent (tapeloop's own loop runs it) fails naming the file and
// ErrNotBridged, without running the agent.
func TestRunnerRefusesANativeScenario(t *testing.T) {
	path := writeScenario(t, strings.Replace(notesScenario, "  agent: {go: notes}\n", "", 1))
	s := load(t, path)
	if s.Setup.Agent != nil {
		t.Fatalf("the scenario still has setup.agent: %+v", s.Setup.Agent)
	}
	ran := false
	agent := func(context.Context, *bridge.Run) error { ran = true; return nil }
	o, err := bridge.Runner(agent, nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if !errors.Is(err, bridge.ErrNotBridged) || !strings.Contains(err.Error(), path) || ran || o != nil {
		t.Errorf("Runner on a native scenario: outcome %v, error %v, agent ran: %v; want ErrNotBridged naming %s, the agent not run", o, err, ran, path)
	}
}

// TestRecordRefusesANativeScenario: Record of a scenario without
// setup.agent returns the Runner's error (ErrNotBridged, naming the file)
// with no outcome and no tape, without running the agent.
func TestRecordRefusesANativeScenario(t *testing.T) {
	path := writeScenario(t, strings.Replace(notesScenario, "  agent: {go: notes}\n", "", 1))
	s := load(t, path)
	ran := false
	agent := func(context.Context, *bridge.Run) error { ran = true; return nil }
	o, tp, err := bridge.Record(t.Context(), s, agent, notesScript(), nil)
	if !errors.Is(err, bridge.ErrNotBridged) || !strings.Contains(err.Error(), path) || o != nil || tp != nil || ran {
		t.Errorf("Record of a native scenario: outcome %v, tape %v, error %v, agent ran %v; want ErrNotBridged naming %s, the agent not run", o, tp, err, ran, path)
	}
}

// TestServeLimitsHeadersNotBodies: the listener Run.Serve starts drops a
// client that does not send its request's headers in time, so a stalled
// client cannot hold it open; a request whose headers came in time may
// send its body as slowly as it likes. A second client's drop is the
// clock: it stalls from after the first request's headers were read (the
// server's "100 Continue"), so when it is dropped the limit has passed
// for the first one too.
func TestServeLimitsHeadersNotBodies(t *testing.T) {
	setDuration(t, bridge.CommandReadHeaderTimeout, 50*time.Millisecond)
	s := load(t, writeScenario(t, rawScenario))
	bound := time.Now().Add(time.Minute) // turns a hang into a failure
	var status, answer string
	agentFn := func(ctx context.Context, r *bridge.Run) error {
		root, err := r.Serve()
		if err != nil {
			return err
		}
		addr := strings.TrimPrefix(root, "http://")
		slow, err := net.Dial("tcp", addr)
		if err != nil {
			return err
		}
		defer slow.Close()
		slow.SetDeadline(bound)
		body := `{"model":"m","messages":[` + userGo + `]}`
		fmt.Fprintf(slow, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", addr, len(body))
		br := bufio.NewReader(slow)
		if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 100 ") {
			return fmt.Errorf("the headers sent, the server said %q (%v), want 100 Continue", line, err)
		}
		if _, err := br.ReadString('\n'); err != nil {
			return err
		}
		stalled, err := net.Dial("tcp", addr)
		if err != nil {
			return err
		}
		defer stalled.Close()
		stalled.SetDeadline(bound)
		if n, err := stalled.Read(make([]byte, 1)); errors.Is(err, os.ErrDeadlineExceeded) || n > 0 {
			return fmt.Errorf("a client that sent nothing was not dropped: read %d bytes, %v", n, err)
		}
		if _, err := io.WriteString(slow, body); err != nil {
			return err
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return fmt.Errorf("the slow body's answer: %w", err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		status, answer = resp.Status, string(b)
		return err
	}
	o, err := bridge.Runner(agentFn, nil)(t.Context(), s, &harness.RunOptions{Model: script(text("done"))})
	if err != nil {
		t.Fatal(err)
	}
	if o.Error != "" || status != "200 OK" || !strings.Contains(answer, `"done"`) {
		t.Errorf("a request whose body came after the header limit: run error %q, answer %s %s; want 200 with the model's answer", o.Error, status, answer)
	}
}

// TestRunWithoutItsTempDir: a run makes its workspace in TMPDIR; when that
// folder is missing the run fails before the agent starts, naming the
// scenario and the folder it could not make.
func TestRunWithoutItsTempDir(t *testing.T) {
	s := load(t, writeScenario(t, notesScenario))
	missing := filepath.Join(t.TempDir(), "missing")
	t.Setenv("TMPDIR", missing)
	ran := false
	agent := func(context.Context, *bridge.Run) error { ran = true; return nil }
	o, err := bridge.Runner(agent, nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), s.Path) || !strings.Contains(err.Error(), missing) || ran || o != nil {
		t.Errorf("a run with TMPDIR missing: outcome %v, error %v, agent ran %v; want an error naming %s and %s, the agent not run", o, err, ran, s.Path, missing)
	}
}

// TestSeedTreeGoneBeforeTheRun: a scenario whose setup.workspace.from
// folder is removed after it was loaded fails its run before the agent
// starts, naming the file, the line and the key.
func TestSeedTreeGoneBeforeTheRun(t *testing.T) {
	path := writeScenario(t, strings.Replace(notesScenario, "  workspace:\n", "  workspace:\n    from: seed\n", 1))
	seedDir := filepath.Join(filepath.Dir(path), "seed")
	if err := os.Mkdir(seedDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(seedDir, "todo.txt"), []byte("milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := load(t, path)
	if err := os.RemoveAll(seedDir); err != nil {
		t.Fatal(err)
	}
	ran := false
	agent := func(context.Context, *bridge.Run) error { ran = true; return nil }
	o, err := bridge.Runner(agent, nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if want := fmt.Sprintf("%s:%d: setup.workspace.from", path, s.Setup.Workspace.FromLine); err == nil || !strings.Contains(err.Error(), want) || ran || o != nil {
		t.Errorf("a run whose seed tree is gone: outcome %v, error %v, agent ran %v; want an error naming %s, the agent not run", o, err, ran, want)
	}
}

// TestSeedFileTheDiskRefuses: a setup.workspace file the disk cannot hold
// (here a name longer than a file system allows) fails the run before the
// agent starts, naming the scenario, rather than leaving it out.
func TestSeedFileTheDiskRefuses(t *testing.T) {
	long := strings.Repeat("n", 300) + ".txt"
	s := load(t, writeScenario(t, strings.Replace(notesScenario, "      notes.txt: \"hello\\n\"\n", "      notes.txt: \"hello\\n\"\n      "+long+": \"x\"\n", 1)))
	if len(s.Setup.Workspace.Files) != 2 {
		t.Fatalf("the scenario's workspace files: %+v", s.Setup.Workspace.Files)
	}
	ran := false
	agent := func(context.Context, *bridge.Run) error { ran = true; return nil }
	o, err := bridge.Runner(agent, nil)(t.Context(), s, &harness.RunOptions{Model: notesScript()})
	if err == nil || !strings.Contains(err.Error(), s.Path+": seeding the workspace: ") || !strings.Contains(err.Error(), long) || ran || o != nil {
		t.Errorf("a seed file the disk refuses: an outcome %v, error %v, agent ran %v; want an error naming %s and the file, the agent not run", o != nil, err, ran, s.Path)
	}
}
