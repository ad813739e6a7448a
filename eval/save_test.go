package eval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// agentTrial is a trial of a bridged scenario (setup.agent, whose command
// names $SCENARIO_DIR) under dir/src, that ended with termination, its tape
// offering the tools offered (nil: none recorded).
func agentTrial(t *testing.T, dir, termination string, offered *tape.Offered) *Trial {
	t.Helper()
	src := filepath.Join(dir, "src", "agent.yaml")
	text := "format: tapeloop/v1\nname: bridged\nsetup:\n  agent: {command: [node, $SCENARIO_DIR/agent.js]}\ninput:\n  - {role: user, content: hi}\ntape: []\n"
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	return &Trial{Scenario: s, Model: "test/m", Report: &report.EvalTrial{Trial: 1, Termination: termination},
		Tape: &tape.Tape{Name: s.Name, Offered: offered}}
}

// replaysAs is a SaveOptions.Verify whose replay ends with o.
func replaysAs(o *harness.Outcome) *SaveOptions {
	return &SaveOptions{Verify: func(context.Context, *scenario.Scenario, *harness.VerifyOptions) *harness.Verdict {
		return &harness.Verdict{Outcome: o}
	}}
}

// SaveTrial writes a bridged trial with its agent's $SCENARIO_DIR pointed
// back at the author's folder, its offered block only when the tape
// recorded one, and no judge block when nothing was judged.
func TestSaveTrialOfABridgedScenario(t *testing.T) {
	dir := t.TempDir()
	offered := &tape.Offered{Tools: []llm.ToolDefinition{{Name: "notes", Description: "Keeps notes."}}}
	for _, tc := range []struct {
		offered *tape.Offered
		want    bool
	}{{nil, false}, {offered, true}} {
		tr := agentTrial(t, dir, "final_text", tc.offered)
		p, err := SaveTrial(context.Background(), filepath.Join(dir, "trials"), tr, replaysAs(&harness.Outcome{Termination: "final_text"}))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		saved := string(b)
		if !strings.Contains(saved, "${SCENARIO_DIR}/../../../src/agent.js") {
			t.Errorf("the agent's command does not name the author's folder from %s:\n%s", p, saved)
		}
		if got := strings.Contains(saved, "\noffered:"); got != tc.want {
			t.Errorf("offered %v: the saved file has an offered block %v, want %v:\n%s", tc.offered != nil, got, tc.want, saved)
		}
		if strings.Contains(saved, "\njudge:") {
			t.Errorf("a trial without verdicts saved a judge block:\n%s", saved)
		}
	}
}

// A saved trial whose replay leaves its tape, ends otherwise than the
// trial did, or could not do its job there (its golden not written:
// harness.ErrNotUpdated) is not replayable; a trial that recorded no
// termination (it could not run) is not compared.
func TestSaveTrialRefusesWhatDoesNotReplay(t *testing.T) {
	dir := t.TempDir()
	notUpdated := &fileerr.Error{Problem: "the agent stopped before its first model request, so its golden is untouched", Kind: harness.ErrNotUpdated}
	for _, tc := range []struct {
		name, live string
		replay     *harness.Outcome
		failures   []*fileerr.Error
		refused    bool
	}{
		{"diverged", "final_text", &harness.Outcome{Termination: "final_text", Diverged: true, Error: "request 1 differs"}, nil, true},
		{"another end", "final_text", &harness.Outcome{Termination: "max_iterations"}, nil, true},
		{"the same end", "final_text", &harness.Outcome{Termination: "final_text"}, nil, false},
		{"no live end", "", &harness.Outcome{Termination: "final_text"}, nil, false},
		{"golden not written", "agent_error", &harness.Outcome{Termination: "agent_error", Error: "exit status 1"}, []*fileerr.Error{notUpdated}, true},
		{"an expectation failed", "final_text", &harness.Outcome{Termination: "final_text"}, []*fileerr.Error{{Problem: "expect.final", Kind: harness.ErrExpectation}}, false},
	} {
		opts := &SaveOptions{Verify: func(context.Context, *scenario.Scenario, *harness.VerifyOptions) *harness.Verdict {
			return &harness.Verdict{Outcome: tc.replay, Failures: tc.failures}
		}}
		_, err := SaveTrial(context.Background(), filepath.Join(dir, "trials"), agentTrial(t, dir, tc.live, nil), opts)
		if got := errors.Is(err, ErrNotReplayable); got != tc.refused || (!tc.refused && err != nil) {
			t.Errorf("%s: %v; want refused as not replayable %v", tc.name, err, tc.refused)
		}
		if tc.failures != nil && tc.refused && (err == nil || !strings.Contains(err.Error(), tc.failures[0].Problem)) {
			t.Errorf("%s: %v; want it to say %q", tc.name, err, tc.failures[0].Problem)
		}
	}
}

// TestSaveTrialRedactsWithTheGivenRedactor: the saved scenario's copy of
// the author's text is redacted by SaveOptions.Redactor: a value only that
// redactor knows (a --redact secret) does not reach the file.
func TestSaveTrialRedactsWithTheGivenRedactor(t *testing.T) {
	const code = "Zq7xW9kLmNpRsTuv42Hd"
	dir := t.TempDir()
	src := filepath.Join(dir, "src", "code.yaml")
	text := "format: tapeloop/v1\nname: code\ninput:\n  - {role: user, content: \"The door code is " + code + ".\"}\ntape: []\n"
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	tr := &Trial{Scenario: s, Model: "test/m", Report: &report.EvalTrial{Trial: 1, Termination: "final_text"},
		Tape: &tape.Tape{Name: s.Name, Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("Noted.")}}}}}
	opts := replaysAs(&harness.Outcome{Termination: "final_text"})
	opts.Redactor = redact.New(&redact.Options{Secrets: []redact.Secret{{Kind: "CODE", Value: code}}})
	p, err := SaveTrial(context.Background(), filepath.Join(dir, "trials"), tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if saved := string(b); strings.Contains(saved, code) || !strings.Contains(saved, "The door code is "+redact.Redacted) {
		t.Errorf("the saved scenario keeps the secret, or lost the text around it:\n%s", saved)
	}
}
