package evalrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResumeRerunsAChangedScenario: --resume reuses a finished trial only
// for the same scenario content; a scenario whose expect: (or input, or
// seed workspace) changed since the report runs again (issue 39, item 10).
func TestResumeRerunsAChangedScenario(t *testing.T) {
	dir := newScenarios(t, map[string]string{"files/append.yaml": appendScenario})
	first := filepath.Join(t.TempDir(), "first.json")
	if code, out, errOut := runCmd(t, "eval", "--model", "scripted/right", "--trials", "2", "--parallel", "1", "--json", first, dir); code != exitOK {
		t.Fatalf("first run: exit %d\n%s%s", code, out, errOut)
	}
	// Unchanged: both trials are reused, none runs.
	code, out, errOut := runCmd(t, "eval", "--model", "scripted/right", "--trials", "2", "--parallel", "1", "--resume", first, dir)
	if code != exitOK || strings.Contains(errOut, "1/2 trials") {
		t.Fatalf("resume of an unchanged scenario: exit %d, or it ran trials again\n%s%s", code, out, errOut)
	}
	// The expectation changed: the recorded verdicts say nothing of it.
	path := filepath.Join(dir, "files", "append.yaml")
	os.WriteFile(path, []byte(strings.Replace(appendScenario, `final: {contains: "done"}`, `final: {contains: "never said"}`, 1)), 0o644)
	code, out, errOut = runCmd(t, "eval", "--model", "scripted/right", "--trials", "2", "--parallel", "1", "--resume", first, dir)
	if code != exitFailed || !strings.Contains(out, "0/2") {
		t.Errorf("resume of a scenario whose expect changed: exit %d, want 1 with both trials run again and failing\n%s%s", code, out, errOut)
	}
}
