package evalrun

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLintPrintsEveryProblemAndWarnings: lint prints every problem of a file
// at once; a warning (a reused call id) alone does not fail it.
func TestLintPrintsEveryProblemAndWarnings(t *testing.T) {
	dir := newScenarios(t, map[string]string{
		"reused.yaml": "format: tapeloop/v1\nsetup: {tools: [echo]}\ninput: []\ntape:\n  - response: {tool_calls: [{id: c1, name: echo}]}\n  - response: {tool_calls: [{id: c1, name: echo}]}\n  - response: {content: ok}\n",
		"bad.yaml":    "format: tapeloop/v1\ninput: []\ntape: [{response: {content: ok}}]\nexpect:\n  final: ok\n  files: {../x: null}\n",
	})
	code, out, errOut := runCmd(t, "lint", dir)
	bad, reused := filepath.Join(dir, "bad.yaml"), filepath.Join(dir, "reused.yaml")
	want := bad + `:5: expect.final: want a mapping {equals|contains|matches: TEXT}, got a string; write final: {contains: "ok"}
` + bad + `:6: expect.files: "../x" is outside the workspace (paths are relative to it and may not leave it)
` + reused + `:6: warning: tape: call id "c1" is used again (first on line 5); name these calls by position in expectations, as {turn: 2, call: 1}
`
	if code != exitUsage || errOut != want || !strings.Contains(out, "ok    reused\n") || !strings.Contains(out, "2 scenario files, 1 with errors") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant stderr:\n%s", code, out, errOut, want)
	}
}

// TestLintOneFileSingular: the summary counts one file in the singular.
func TestLintOneFileSingular(t *testing.T) {
	dir := newScenarios(t, map[string]string{"one.yaml": "format: tapeloop/v1\ninput: []\ntape: [{response: {content: ok}}]\n"})
	code, out, _ := runCmd(t, "lint", dir)
	if code != 0 || !strings.HasSuffix(out, "\n1 scenario file, 0 with errors\n") {
		t.Errorf("exit %d, stdout:\n%s", code, out)
	}
}
