package bridge_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/replay"
)

// TestRecordRedacts: what a bridged recording writes goes through the
// recording's redactor (here an extra rule for a made-up secret in the
// agent's system prompt): the scenario file never holds the secret.
func TestRecordRedacts(t *testing.T) {
	const secret = "hunter2-hunter2-hunter2"
	path := writeScenario(t, notesScenario)
	s := load(t, path)
	a := newNotesAgent()
	a.system = "You keep notes in files. The vault key is " + secret + "."
	opts := &bridge.RecordOptions{Recorder: &replay.RecorderOptions{Redactor: redact.New(&redact.Options{Environ: os.Environ(), Extra: func(v string) string {
		return strings.ReplaceAll(v, secret, "[REDACTED:vault]")
	}})}}
	_, tape, err := bridge.Record(t.Context(), s, a.agentFunc(), notesScript(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := bridge.WriteRecording(path, tape); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret) || !strings.Contains(string(b), "The vault key is [REDACTED:vault].") {
		t.Errorf("the recorded scenario is not redacted:\n%s", b)
	}
}

// TestRequestAfterTheTape: a model call after the tape's last entry is
// answered with a 400 (which a client does not retry), saying why, and
// fails the scenario, naming the file and quoting the request the tape
// has no answer for.
func TestRequestAfterTheTape(t *testing.T) {
	path := record(t, notesScenario, newNotesAgent().agentFunc(), notesScript())
	var agentErr error
	again := func(ctx context.Context, r *bridge.Run) error {
		a := newNotesAgent()
		if err := a.agentFunc()(ctx, r); err != nil {
			return err
		}
		_, agentErr = a.run(ctx, r.HTTPClient, r.OpenAIBaseURL, r.Dir, "And once more.")
		return agentErr
	}
	v := verify(t, path, again, false)
	if v.Passed() {
		t.Fatal("a run that asked the model after the tape's end passed")
	}
	if agentErr == nil || !strings.Contains(agentErr.Error(), "HTTP 400: ") || !strings.Contains(agentErr.Error(), "tapeloop bridge: replay: notes.yaml: tape exhausted after 3 entries") {
		t.Errorf("the agent's call after the tape got %v; want HTTP 400 saying the tape is exhausted", agentErr)
	}
	all := fmt.Sprint(v.Failure())
	for _, w := range []string{"notes.yaml", "after 3 entries", "And once more."} {
		if !strings.Contains(all, w) {
			t.Errorf("the failures do not say %q:\n%s", w, all)
		}
	}
	// Running past the tape is a divergence, as in a native replay: the
	// verdict says so first and compares nothing the run did after it.
	if !v.Outcome.Diverged || len(v.Failures) == 0 || !strings.Contains(v.Failures[0].Error(), "the run diverged from the tape") {
		t.Errorf("a run past the tape's end is not reported as diverged (Diverged %v):\n%s", v.Outcome.Diverged, all)
	}
	if !errors.Is(v.Outcome.Run.Termination.Err, replay.ErrTapeExhausted) || v.Outcome.Termination != agent.ReasonModelError {
		t.Errorf("the run ended with %s, %v; want model_error wrapping replay.ErrTapeExhausted", v.Outcome.Termination, v.Outcome.Run.Termination.Err)
	}
}
