package evalrun

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/builtin" // openai-compatible, the "live" provider
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

// TestEvalSaveTrialsBridged: eval --save-trials of a bridged scenario
// (its Go agent registered, a scripted model behind bridge.Handler as the
// live one, answering right once and wrong once) saves both trials with
// their goldens; replaying the saved folder with the same agent passes the
// passing trial and fails the failing one with the live failure, now
// naming the saved file.
func TestEvalSaveTrialsBridged(t *testing.T) {
	var mu sync.Mutex
	answers := []string{"Hello.", "Goodbye."}
	live := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		text := answers[0]
		answers = answers[1:]
		return &llm.Response{Message: llm.AssistantMessage(text), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 12, OutputTokens: 3}}, nil
	})
	srv := httptest.NewServer(bridge.Handler(live, nil))
	defer srv.Close()
	dir := newScenarios(t, map[string]string{"b/echo.yaml": echoScenario})
	saved := filepath.Join(t.TempDir(), "trials")
	jsonPath := filepath.Join(t.TempDir(), "out.json")
	agent := echoAgent("You are terse.")
	code, out, errOut := runAgentCmd(t, agent, "eval", "--model", "openai-compatible/gpt-test", "--base-url", srv.URL+"/v1",
		"--trials", "2", "--parallel", "1", "--save-trials", saved, "--json", jsonPath, dir)
	if code != exitFailed || !strings.Contains(out, "1/2 flaky") {
		t.Fatalf("eval: exit %d; want 1 with one trial of two passing\n%s%s", code, out, errOut)
	}
	r := readReport(t, jsonPath)
	var liveFailure string
	for _, tr := range r.Scenarios[0].TrialsDetail {
		if tr.Saved == "" {
			t.Fatalf("trial %d (%s) was not saved", tr.Trial, tr.Status)
		}
		if _, err := os.Stat(scenario.GoldenPath(tr.Saved)); err != nil {
			t.Errorf("trial %d: no golden beside the saved scenario: %v", tr.Trial, err)
		}
		if tr.Status == report.StatusFail {
			if len(tr.Failures) != 1 {
				t.Fatalf("failing trial %d: failures %q; want one", tr.Trial, tr.Failures)
			}
			// The message without its file:line, which names the scenario.
			_, liveFailure, _ = strings.Cut(tr.Failures[0], ": expect.")
		}
	}
	if liveFailure == "" {
		t.Fatalf("no failing trial in the report: %+v", r.Scenarios[0].TrialsDetail)
	}
	code, out, errOut = runAgentCmd(t, agent, "replay", saved)
	if code != exitFailed || !strings.Contains(out, "1 passed, 1 failed") {
		t.Fatalf("replaying the saved trials: exit %d; want 1 with 1 passed, 1 failed\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, filepath.Join(saved, "b", "echo", "openai-compatible-gpt-test")) || !strings.Contains(out, ": expect."+liveFailure) {
		t.Errorf("the replay does not fail as the live trial did (%q, naming the saved file):\n%s", liveFailure, out)
	}
	// The saved trials pin what the agent offered the model (the scenario
	// had no offered: block): a changed system prompt fails their replay.
	code, out, errOut = runAgentCmd(t, echoAgent("You are kind."), "replay", saved)
	if code != exitFailed || !strings.Contains(out, "0 passed, 2 failed") || !strings.Contains(out, "+You are kind.") {
		t.Errorf("replaying the saved trials with a changed system prompt: exit %d; want 1, both failing with the prompt's diff\n%s%s", code, out, errOut)
	}
}

// TestEvalSaveTrialsBridgedNotReplayable: a bridged agent whose requests
// differ from run to run (here a counter in its user message) is live
// scored, but its saved trial would not replay: saving it is an error
// naming the divergence, not a file that fails later for another reason.
func TestEvalSaveTrialsBridgedNotReplayable(t *testing.T) {
	live := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.AssistantMessage("Hello."), FinishReason: llm.FinishStop}, nil
	})
	srv := httptest.NewServer(bridge.Handler(live, nil))
	defer srv.Close()
	dir := newScenarios(t, map[string]string{"b/echo.yaml": echoScenario})
	saved := filepath.Join(t.TempDir(), "trials")
	var mu sync.Mutex
	runs := 0
	agent := func(ctx context.Context, r *bridge.Run) error {
		mu.Lock()
		runs++
		in := slices.Clone(r.Input)
		in[len(in)-1].Content += fmt.Sprintf(" (run %d)", runs)
		mu.Unlock()
		r.Input = in
		return echoAgent("You are terse.")(ctx, r)
	}
	code, out, errOut := runAgentCmd(t, agent, "eval", "--model", "openai-compatible/gpt-test", "--base-url", srv.URL+"/v1",
		"--trials", "1", "--save-trials", saved, dir)
	if code != exitUsage || !strings.Contains(out, "1/1 pass") ||
		!strings.Contains(errOut, "saving trial b/echo/openai-compatible-gpt-test/trial-1: the saved scenario does not replay: ") ||
		!strings.Contains(errOut, "--save-trials: 1 trials could not be saved") {
		t.Errorf("eval: exit %d; want 2, the trial passed and not saved, saying why\n%s%s", code, out, errOut)
	}
}
