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

// TestBridgedRecordHint: the record command a failed replay of a bridged
// scenario suggests says what --model does for it: the agent's own request
// is forwarded, PROVIDER only chooses where it goes and with which key, and
// the agent's model (once pinned, named in the command) is kept unless
// another is named.
func TestBridgedRecordHint(t *testing.T) {
	dir := newScenarios(t, map[string]string{
		"b/echo.yaml":  echoScenario,
		"b/new.yaml":   strings.Replace(echoScenario, "tape:\n  - response: {content: \"Hello.\"}\n", "", 1),
		"b/other.yaml": strings.Replace(echoScenario, "  - response: {content: \"Hello.\"}\n", "  - response: {content: \"Hello.\"}\n    request: {last_message: {role: user, content: \"Say bye.\"}}\n", 1),
	})
	path, fresh, other := filepath.Join(dir, "b", "echo.yaml"), filepath.Join(dir, "b", "new.yaml"), filepath.Join(dir, "b", "other.yaml")
	before, after := echoAgent("You are terse."), echoAgent("You are terse and kind.")
	forwarded := "(PROVIDER: the vendor whose endpoint and key get the agent's own request; "
	if code, out, errOut := runAgentCmd(t, before, "replay", fresh); code == exitOK ||
		!strings.Contains(out+errOut, "record one with `evalrun record --model PROVIDER/MODEL "+fresh+"` "+forwarded+"MODEL replaces the agent's model only when it names another)") {
		t.Errorf("replay of a bridged scenario without a tape: exit %d, want the record hint saying what --model does\n%s%s", code, out, errOut)
	}
	if code, out, _ := runAgentCmd(t, before, "replay", other); code != exitFailed ||
		!strings.Contains(out, "record it again: `evalrun record --mode all --model PROVIDER/MODEL "+other+"` "+forwarded+"MODEL replaces the agent's model only when it names another)") {
		t.Errorf("replay with another user message, model not pinned: exit %d, want the record hint saying what --model does\n%s", code, out)
	}
	// eval and record without --model: a bridged agent names its own
	// model in its request, not in setup.loop.request.model.
	for _, args := range [][]string{{"eval", path}, {"record", "--mode", "all", path}} {
		code, out, errOut := runAgentCmd(t, before, args...)
		if code != exitUsage || !strings.Contains(errOut, path+": ") || !strings.Contains(errOut, "its agent's own request is forwarded, model and all: give --model PROVIDER/MODEL "+forwarded+"MODEL replaces the agent's model only when it names another)") ||
			strings.Contains(errOut, "setup.loop.request.model") {
			t.Errorf("%s without --model: exit %d, want 2 saying what --model does for a bridged agent\n%s%s", args[0], code, out, errOut)
		}
	}
	if code, out, errOut := runAgentCmd(t, before, "replay", "--update", path); code != exitOK {
		t.Fatalf("replay --update: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runAgentCmd(t, before, "rebase", "--all", path); code != exitOK {
		t.Fatalf("rebase --all: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := runAgentCmd(t, after, "replay", path); code != exitFailed ||
		!strings.Contains(out, "record it again: `evalrun record --mode all --model PROVIDER/m "+path+"` "+forwarded+"its model, m, is kept unless you name another)") {
		t.Errorf("replay with a changed prompt, model pinned: exit %d, want the record hint naming the agent's model\n%s", code, out)
	}
	if code, out, errOut := runAgentCmd(t, after, "eval", path); code != exitUsage ||
		!strings.Contains(errOut, path+": its agent's own request is forwarded, model and all: give --model PROVIDER/m "+forwarded+"its model, m, is kept unless you name another)") {
		t.Errorf("eval without --model, model pinned: exit %d, want 2 naming the agent's model\n%s%s", code, out, errOut)
	}
}
