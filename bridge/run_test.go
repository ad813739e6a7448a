package bridge_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
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
		t.Fatalf("the replay fails:\n%s", strings.Join(v.Failures, "\n"))
	}
	golden, err := os.ReadFile(scenario.GoldenPath(path))
	if err != nil {
		t.Fatal(err)
	}
	if want := "state:\n  notes:\n    lines: 2\n  saved: true\n"; !strings.Contains(string(golden), want) {
		t.Errorf("the golden does not hold %q:\n%s", want, golden)
	}
	v := verify(t, path, withState(3), false)
	if v.Passed() || !strings.Contains(strings.Join(v.Failures, "\n"), "expect.state: expected /notes/lines to be 2, found 3") {
		t.Errorf("another reported state passed or failed otherwise:\n%s", strings.Join(v.Failures, "\n"))
	}
}

// TestHandlerRefusesAnUnknownPath: a request to a path that is neither
// API's gets 404 with a message naming the path, and uses up no entry of
// the tape.
func TestHandlerRefusesAnUnknownPath(t *testing.T) {
	var code int
	var body string
	agent := func(ctx context.Context, r *bridge.Run) error {
		w := httptest.NewRecorder()
		r.Handler.ServeHTTP(w, httptest.NewRequest(http.MethodPost, r.OpenAIBaseURL+"/embeddings", strings.NewReader(`{"input": "notes"}`)))
		code, body = w.Code, w.Body.String()
		return newNotesAgent().agentFunc()(ctx, r)
	}
	path := record(t, notesScenario, agent, notesScript())
	if code != http.StatusNotFound || !strings.Contains(body, `unknown API path \"/v1/embeddings\"`) {
		t.Errorf("recording: /v1/embeddings got %d %s, want 404 naming the path", code, body)
	}
	if v := verify(t, path, agent, true); !v.Passed() {
		t.Fatalf("the replay fails:\n%s", strings.Join(v.Failures, "\n"))
	}
	if code != http.StatusNotFound {
		t.Errorf("replay: /v1/embeddings got %d %s, want 404", code, body)
	}
}
