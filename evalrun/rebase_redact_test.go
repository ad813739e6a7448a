package evalrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRebaseNeverUnredacts: rebase takes --redact-env and --redact as
// record does, and accepting a reworded prompt keeps [REDACTED] where the
// recording redacted a value, whether or not the policy knows it, in the
// file and in what it prints (issue 39, item 3).
func TestRebaseNeverUnredacts(t *testing.T) {
	t.Setenv("APP_PLAIN", plainSecret)
	dir := newScenarios(t, map[string]string{"b/echo.yaml": echoScenario})
	path := filepath.Join(dir, "b", "echo.yaml")
	before := echoAgent("You are terse. Key: " + plainSecret + ". Be kind.")
	if code, out, errOut := runAgentCmd(t, before, "replay", "--update", "--redact-env", "APP_PLAIN", path); code != exitOK {
		t.Fatalf("replay --update: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runAgentCmd(t, before, "rebase", "--all", "--redact-env", "APP_PLAIN", path)
	pinned, _ := os.ReadFile(path)
	if code != exitOK || !strings.Contains(string(pinned), "Key: [REDACTED]. Be kind.") {
		t.Fatalf("rebase --all --redact-env: exit %d\n%s%s\n%s", code, out, errOut, pinned)
	}
	check := func(what string, data ...string) {
		t.Helper()
		for _, d := range data {
			if strings.Contains(d, plainSecret) {
				t.Errorf("%s holds the secret:\n%s", what, d)
			}
		}
	}
	check("rebase --all --redact-env", string(pinned), out, errOut)

	// Reworded, rebased without the flag: the redaction stays.
	after := echoAgent("You are brief. Key: " + plainSecret + ". Be kind.")
	code, out, errOut = runAgentCmd(t, after, "rebase", "--json", filepath.Join(t.TempDir(), "r.json"), path)
	rebased, _ := os.ReadFile(path)
	if code != exitOK || !strings.Contains(string(rebased), "You are brief. Key: [REDACTED]. Be kind.") {
		t.Errorf("rebase of a reworded prompt: exit %d\n%s%s\n%s", code, out, errOut, rebased)
	}
	check("rebase without --redact-env", string(rebased), out, errOut)
	golden, _ := os.ReadFile(filepath.Join(dir, "b", "echo.golden.yaml"))
	check("the golden", string(golden))
	if code, out, errOut := runAgentCmd(t, after, "replay", path); code != exitOK {
		t.Errorf("replay after the rebase: exit %d\n%s%s", code, out, errOut)
	}
}
