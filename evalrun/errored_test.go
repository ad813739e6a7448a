package evalrun

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

func init() {
	// deny refuses every call, as a provider does a revoked key.
	llm.Register("deny", llm.ProviderFunc(func(ctx context.Context, model string, opts *llm.OpenOptions) (llm.Model, error) {
		return llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
			return nil, &llm.ProviderError{Kind: llm.ErrAuth, StatusCode: 401, Message: "invalid api key"}
		}), nil
	}))
}

// TestErroredTrialsFailTheGate: a run whose trials errored (a provider
// answering 401 to everything) has its own exit status, apart from a
// failed trial's, and compare fails on it by default instead of finding
// "no significant change" over nothing (issue 39, item 12).
func TestErroredTrialsFailTheGate(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	tmp := t.TempDir()
	accepted, night := filepath.Join(tmp, "accepted.json"), filepath.Join(tmp, "night.json")
	if code, out, errOut := runCmd(t, "eval", "--model", "scripted/right", "--trials", "2", "--json", accepted, dir); code != exitOK {
		t.Fatalf("the accepted run: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runCmd(t, "eval", "--model", "deny/m", "--trials", "2", "--json", night, dir)
	if code != exitErrored || !strings.Contains(errOut, "2 trials errored") {
		t.Errorf("eval against a provider refusing every call: exit %d, want %d saying the trials errored\n%s%s", code, exitErrored, out, errOut)
	}
	code, out, errOut = runCmd(t, "compare", "--model-a", "scripted/right", "--model-b", "deny/m", accepted, night)
	if code != exitFailed || !strings.Contains(errOut, "2 of 2 trials of deny/m errored") {
		t.Errorf("compare with an errored run: exit %d, want 1 saying its trials errored\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCmd(t, "compare", "--allow-errors", "--model-a", "scripted/right", "--model-b", "deny/m", accepted, night)
	if code != exitFailed || !strings.Contains(errOut, "no scenario has scored trials in both") {
		t.Errorf("compare --allow-errors with nothing shared: exit %d, want 1 saying nothing was compared\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, "compare", "--model-a", "scripted/right", "--model-b", "scripted/right", accepted, accepted); code != exitOK {
		t.Errorf("compare of a run with itself: exit %d\n%s%s", code, out, errOut)
	}
}
