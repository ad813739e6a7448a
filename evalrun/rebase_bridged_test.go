package evalrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
)

// echoScenario is bridged: its agent (echoAgent) asks the model once.
const echoScenario = `format: tapeloop/v1
setup:
  agent: {go: echo}
input:
  - {role: user, content: "Say hello."}
tape:
  - response: {content: "Hello."}
expect:
  termination: final_text
  final: {equals: "Hello."}
`

// echoAgent is a Go agent on plain HTTP: one Chat Completions request with
// system as its system prompt; the answer is its final text.
func echoAgent(system string) bridge.Agent {
	return func(ctx context.Context, r *bridge.Run) error {
		body, _ := json.Marshal(map[string]any{"model": "m", "messages": []map[string]string{
			{"role": "system", "content": system},
			{"role": "user", "content": r.Input[len(r.Input)-1].Content},
		}})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.OpenAIBaseURL+"/chat/completions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := r.HTTPClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		var out struct {
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Choices) == 0 {
			return fmt.Errorf("bad answer: %v", err)
		}
		r.Final(out.Choices[0].Message.Content)
		return nil
	}
}

func runAgentCmd(t *testing.T, agent bridge.Agent, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, agents: map[string]harness.Runner{"echo": bridge.Runner(agent, nil)}}
	code = run(context.Background(), args, e)
	return code, out.String(), errb.String()
}

// TestRebaseBridged: rebase pins and re-bases a bridged scenario's requests
// through its own agent, as it does a native one's.
func TestRebaseBridged(t *testing.T) {
	dir := newScenarios(t, map[string]string{"b/echo.yaml": echoScenario})
	path := filepath.Join(dir, "b", "echo.yaml")
	before := echoAgent("You are terse.")
	if code, out, errOut := runAgentCmd(t, before, "replay", "--update", path); code != exitOK {
		t.Fatalf("replay --update: exit %d\n%s%s", code, out, errOut)
	}
	// A bridged agent's request parameters are a part lint
	// --strict-requests wants pinned, as its prompt.
	if code, _, errOut := runAgentCmd(t, before, "lint", "--strict-requests", path); code != exitUsage ||
		!strings.Contains(errOut, path+": offered.params: the request parameters the agent sends (model, tool choice, temperature, max tokens, ...) are not pinned; it is not compared on replay (evalrun rebase --all pins it)\n") {
		t.Errorf("lint --strict-requests before rebase --all: exit %d, want 2 naming offered.params\n%s", code, errOut)
	}
	if code, out, errOut := runAgentCmd(t, before, "rebase", "--all", path); code != exitOK || !strings.HasPrefix(out, "rebased  b/echo") {
		t.Fatalf("rebase --all: exit %d\n%s%s", code, out, errOut)
	}
	pinned, _ := os.ReadFile(path)
	if !strings.Contains(string(pinned), "system: You are terse.") || !strings.Contains(string(pinned), "params:\n    model: \"m\"\n") {
		t.Fatalf("rebase --all did not pin the system prompt and the model:\n%s", pinned)
	}
	if code, out, errOut := runAgentCmd(t, before, "lint", "--strict-requests", path); code != exitOK ||
		!strings.Contains(out, "requests: system prompt pinned, tools pinned, messages pinned on 1 of 1 model calls, parameters pinned\n") {
		t.Errorf("lint --strict-requests after rebase --all: exit %d\n%s%s", code, out, errOut)
	}

	after := echoAgent("You are terse and kind.")
	if code, out, _ := runAgentCmd(t, after, "replay", path); code != exitFailed || !strings.Contains(out, "+You are terse and kind.") {
		t.Fatalf("replay with a changed system prompt: exit %d, want %d with the prompt's diff:\n%s", code, exitFailed, out)
	}
	if code, out, errOut := runAgentCmd(t, after, "rebase", path); code != exitOK || !strings.Contains(out, "+  system: You are terse and kind.") {
		t.Fatalf("rebase: exit %d, want the rewritten prompt printed\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runAgentCmd(t, after, "replay", path); code != exitOK {
		t.Fatalf("replay after rebase: exit %d\n%s%s", code, out, errOut)
	}
}
