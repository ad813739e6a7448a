package evalrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

// converseScenario is a bridged conversation: its tape, before it is
// recorded, is the user's script of two turns.
const converseScenario = `format: tapeloop/v1
setup:
  agent: {go: echo}
input:
  - {role: system, content: "Answer in two words."}
tape:
  - user: "Say hello."
  - user: "Now say goodbye."
expect:
  termination: final_text
  iterations: 2
  said: [{equals: "Hello there."}]
  final: {equals: "Goodbye now."}
`

// converseAgent is a Go agent on plain HTTP that converses: one Chat
// Completions request per user message with the whole history, each answer
// reported, the next user message asked for until there is none.
func converseAgent(ctx context.Context, r *bridge.Run) error {
	var history []map[string]string
	for _, m := range r.Input {
		history = append(history, map[string]string{"role": string(m.Role), "content": m.Content})
	}
	for {
		answer, err := askChat(ctx, r, map[string]any{"model": "m", "messages": history})
		if err != nil {
			return err
		}
		r.Final(answer)
		history = append(history, map[string]string{"role": "assistant", "content": answer})
		next, ok := r.NextUser(ctx)
		if !ok {
			return nil
		}
		history = append(history, map[string]string{"role": "user", "content": next.Content})
	}
}

// byUserTurns answers "Hello there." to the first user message and
// "Goodbye now." after the second, as a live model would.
var byUserTurns = llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
	users := 0
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			users++
		}
	}
	text := map[int]string{1: "Hello there.", 2: "Goodbye now."}[users]
	return &llm.Response{Message: llm.AssistantMessage(text), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 20 * users, OutputTokens: 3}}, nil
})

// TestRecordBridgedConversation: evalrun record of a bridged conversation
// runs the tape's user turns against the live model through the agent,
// writes each back where it was spoken, shows the progress line after
// each model call, and the recording replays.
func TestRecordBridgedConversation(t *testing.T) {
	dir := newScenarios(t, map[string]string{"b/talk.yaml": converseScenario})
	path := filepath.Join(dir, "b", "talk.yaml")
	f := scripted(
		&llm.Response{Message: llm.AssistantMessage("Hello there."), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 20, OutputTokens: 3}},
		&llm.Response{Message: llm.AssistantMessage("Goodbye now."), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 40, OutputTokens: 3}})
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, isTerminal: true, agents: map[string]harness.Runner{"echo": bridge.Runner(converseAgent, nil)}}
	if code := recordCommand(context.Background(), e, []string{"--model", "fake/m", path}, f.open); code != exitOK {
		t.Fatalf("record: exit %d\n%s%s", code, out.String(), errb.String())
	}
	progress := regexp.MustCompile(`[0-9.]+(ns|µs|ms|s)`).ReplaceAllString(errb.String(), "T")
	if want := "\r\x1b[K  recording b/talk: 0 model calls, 0 tokens in, 0 out, T" +
		"\r\x1b[K  recording b/talk: 1 model call, 20 tokens in, 3 out, T" +
		"\r\x1b[K  recording b/talk: 2 model calls, 60 tokens in, 6 out, T" +
		"\r\x1b[K"; progress != want {
		t.Errorf("the progress line: %q, want %q", progress, want)
	}
	if got, want := tapeOrder(t, path, dir), "user: Say hello. | model: Hello there. | user: Now say goodbye. | model: Goodbye now."; got != want {
		t.Errorf("the recorded tape: %s\nwant %s", got, want)
	}
	if code, out, errOut := runAgentCmd(t, converseAgent, "replay", "--update", path); code != exitOK {
		t.Fatalf("replay --update: exit %d\n%s%s", code, out, errOut)
	}
	golden, _ := os.ReadFile(scenario.GoldenPath(path))
	if !strings.Contains(string(golden), "  - turn: 2\n    user: Now say goodbye.\n") {
		t.Errorf("the golden does not show the second user turn on turn 2:\n%s", golden)
	}
	if code, out, errOut := runAgentCmd(t, converseAgent, "replay", path); code != exitOK {
		t.Errorf("replay: exit %d\n%s%s", code, out, errOut)
	}
	// An agent that answers once leaves the user's second turn unused.
	once := func(ctx context.Context, r *bridge.Run) error { return echoAgent("Answer in two words.")(ctx, r) }
	if code, out, _ := runAgentCmd(t, once, "replay", path); code != exitFailed || !strings.Contains(out, "the agent ended before this user turn") {
		t.Errorf("replay with an agent that does not converse: exit %d, want 1 naming the user turn left\n%s", code, out)
	}
}

// TestEvalSaveTrialsBridgedConversation: eval of a bridged conversation
// drives the tape's user turns live, and --save-trials writes them into
// the saved trial, which replays.
func TestEvalSaveTrialsBridgedConversation(t *testing.T) {
	srv := httptest.NewServer(bridge.Handler(byUserTurns, nil))
	defer srv.Close()
	dir := newScenarios(t, map[string]string{"b/talk.yaml": converseScenario})
	saved := filepath.Join(t.TempDir(), "trials")
	code, out, errOut := runAgentCmd(t, converseAgent, "eval", "--model", "openai-compatible/gpt-test", "--base-url", srv.URL+"/v1",
		"--trials", "2", "--parallel", "1", "--save-trials", saved, dir)
	if code != exitOK || !strings.Contains(out, "2/2") {
		t.Fatalf("eval: exit %d\n%s%s", code, out, errOut)
	}
	trial := filepath.Join(saved, "b", "talk", "openai-compatible-gpt-test", "trial-1.yaml")
	s, err := scenario.Load(trial)
	if err != nil {
		t.Fatal(err)
	}
	if users := s.UserTurns(); len(users) != 2 || s.Tape[2].User == nil {
		t.Errorf("the saved trial's tape does not hold the two user turns in place: %+v", s.Tape)
	}
	if code, out, errOut := runAgentCmd(t, converseAgent, "replay", saved); code != exitOK || !strings.Contains(out, "2 passed, 0 failed") {
		t.Errorf("replaying the saved trials: exit %d\n%s%s", code, out, errOut)
	}
}

// TestRecordExtendBridged: record --mode extend of a bridged conversation
// replays the tape's model answers through the agent and goes on live from
// the first user turn with no answer, appending the rest: one live call.
func TestRecordExtendBridged(t *testing.T) {
	partial := strings.Replace(converseScenario, `tape:
  - user: "Say hello."
  - user: "Now say goodbye."
`, `tape:
  - user: "Say hello."
  - response: {content: "Hello there."}
  - user: "Now say goodbye."
`, 1)
	dir := newScenarios(t, map[string]string{"b/talk.yaml": partial})
	path := filepath.Join(dir, "b", "talk.yaml")
	f := scripted(&llm.Response{Message: llm.AssistantMessage("Goodbye now."), FinishReason: llm.FinishStop})
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, agents: map[string]harness.Runner{"echo": bridge.Runner(converseAgent, nil)}}
	if code := recordCommand(context.Background(), e, []string{"--model", "fake/m", "--mode", "extend", path}, f.open); code != exitOK {
		t.Fatalf("record --mode extend: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if len(f.requests) != 1 {
		t.Errorf("the live model was called %d times, want 1 (the first answer is replayed)", len(f.requests))
	}
	if got, want := tapeOrder(t, path, dir), "user: Say hello. | model: Hello there. | user: Now say goodbye. | model: Goodbye now."; got != want {
		t.Errorf("the extended tape: %s\nwant %s", got, want)
	}
	if code, out, errOut := runAgentCmd(t, converseAgent, "replay", path); code != exitOK {
		t.Errorf("replay: exit %d\n%s%s", code, out, errOut)
	}
}

// tapeOrder loads the scenario at path and lists its tape's user turns and
// model answers in order, joined by " | ".
func tapeOrder(t *testing.T, path, dir string) string {
	t.Helper()
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, en := range s.Tape {
		if en.User != nil {
			order = append(order, "user: "+en.User.Content)
		} else if en.Response != nil {
			order = append(order, "model: "+en.Response.Message.Content)
		}
	}
	return strings.Join(order, " | ")
}

// askChat posts body to the bridge as a Chat Completions request and
// returns the first choice's content: the one exchange the test agents of
// this package make.
func askChat(ctx context.Context, r *bridge.Run, body any) (string, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.OpenAIBaseURL+"/chat/completions", bytes.NewReader(data))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.HTTPClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	err = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusOK || err != nil || len(out.Choices) == 0 {
		return "", fmt.Errorf("HTTP %d: %v", resp.StatusCode, err)
	}
	return out.Choices[0].Message.Content, nil
}
