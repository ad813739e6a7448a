package report

import (
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// TestRedactStringsReachesEveryField: the transcript, failures, error and
// tape of a trial, nested in slices, pointers and maps, are redacted.
func TestRedactStringsReachesEveryField(t *testing.T) {
	const secret = "SECRET"
	r := &Eval{Scenarios: []EvalScenario{{Name: "s", TrialsDetail: []EvalTrial{{
		Failures: []string{"want " + secret},
		Error:    "401: key " + secret,
		Tape: []EvalTapeEntry{{LastMessage: &llm.Message{Content: secret, ToolCalls: []llm.ToolCall{{Arguments: secret}}},
			Response: &EvalResponse{Message: llm.Message{Content: secret}}, Error: secret}},
		Transcript: &Transcript{Final: secret, TerminationError: secret, Turns: []Turn{{User: []string{secret}, Content: secret, Diff: secret}}},
	}}}}}
	RedactStrings(r, func(s string) string { return strings.ReplaceAll(s, secret, "[X]") })
	tr := r.Scenarios[0].TrialsDetail[0]
	for _, got := range []string{tr.Failures[0], tr.Error, tr.Tape[0].LastMessage.Content, tr.Tape[0].LastMessage.ToolCalls[0].Arguments,
		tr.Tape[0].Response.Message.Content, tr.Tape[0].Error, tr.Transcript.Final, tr.Transcript.TerminationError,
		tr.Transcript.Turns[0].User[0], tr.Transcript.Turns[0].Content, tr.Transcript.Turns[0].Diff} {
		if strings.Contains(got, secret) || !strings.Contains(got, "[X]") {
			t.Errorf("a field was not redacted: %q", got)
		}
	}
	if r.Scenarios[0].Name != "s" {
		t.Errorf("an unrelated field changed: %q", r.Scenarios[0].Name)
	}
}

// TestSandboxNotesRedactedInEveryReport: a scenario result redacted as
// evalrun redacts each one (RedactStrings over it) holds no secret in its
// sandbox notes, so its JSON, JUnit and HTML hold none either, and each
// shows the note redacted.
func TestSandboxNotesRedactedInEveryReport(t *testing.T) {
	const secret = "sk-sandbox-0123456789"
	res := ScenarioResult{Name: "cmd/a", Path: "scenarios/cmd/a.yaml", Status: StatusPass,
		Sandbox: []string{"the agent command left 1 process running, killed when the run ended: " + secret}}
	RedactStrings(&res, func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") })
	r := NewReplay([]ScenarioResult{res}, nil)
	for name, write := range map[string]func(w *strings.Builder) error{
		"json":  func(w *strings.Builder) error { return r.WriteJSON(w) },
		"junit": func(w *strings.Builder) error { return r.WriteJUnit(w) },
		"html":  func(w *strings.Builder) error { return r.WriteHTML(w) },
	} {
		var b strings.Builder
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), secret) || !strings.Contains(b.String(), "killed when the run ended: [REDACTED]") {
			t.Errorf("%s: the sandbox note is missing, or not redacted:\n%s", name, b.String())
		}
	}
}
