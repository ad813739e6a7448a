package evalrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lintExample is a suite of a file with two errors and one that reuses a
// call id (a warning).
var lintExample = map[string]string{
	"reused.yaml": "format: tapeloop/v1\nsetup: {tools: [echo]}\ninput: []\ntape:\n  - response: {tool_calls: [{id: c1, name: echo}]}\n  - response: {tool_calls: [{id: c1, name: echo}]}\n  - response: {content: ok}\n",
	"bad.yaml":    "format: tapeloop/v1\ninput: []\ntape: [{response: {content: ok}}]\nexpect:\n  final: ok\n  files: {../x: null}\n",
}

// TestLintPrintsEveryProblemAndWarnings: lint prints every problem of a file
// at once; a warning (a reused call id) alone does not fail it.
func TestLintPrintsEveryProblemAndWarnings(t *testing.T) {
	dir := newScenarios(t, lintExample)
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

// TestLintJSONDoc: lint --json writes the documented example for the two
// files of TestLintPrintsEveryProblemAndWarnings.
func TestLintJSONDoc(t *testing.T) {
	doc := absDoc(t, formatDoc)
	t.Chdir(filepath.Dir(newScenarios(t, lintExample)))
	code, out, _ := runCmd(t, "lint", "--json", "lint.json", "scenarios")
	if code != exitUsage || !strings.Contains(out, "2 scenario files, 1 with errors") {
		t.Fatalf("exit %d; want 2\n%s", code, out)
	}
	got, err := os.ReadFile("lint.json")
	if err != nil {
		t.Fatal(err)
	}
	checkDocJSON(t, doc, lintFormat, got, &lintResult{})
	// --json -: the JSON alone on standard output.
	code, out, errOut := runCmd(t, "lint", "--json", "-", "scenarios")
	if code != exitUsage || out != string(got) || !strings.Contains(errOut, "ok    reused") {
		t.Errorf("--json -: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestLintFailsWhenOrphansCannotBeSought: lint looks for orphan goldens in
// every folder under its arguments, testdata too (which holds no scenario);
// a folder there it cannot read (here its path is longer than the system
// takes) is a usage error naming it, not a clean bill.
func TestLintFailsWhenOrphansCannotBeSought(t *testing.T) {
	dir := newScenarios(t, map[string]string{"one.yaml": "format: tapeloop/v1\ninput: []\ntape: [{response: {content: ok}}]\n"})
	if err := os.Mkdir(filepath.Join(dir, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	deepFolder(t, filepath.Join(dir, "testdata"), 4200)
	code, out, errOut := runCmd(t, "lint", dir)
	if want := "evalrun lint: looking for orphan golden files: "; code != exitUsage || !strings.HasPrefix(errOut, want) || !strings.Contains(errOut, "file name too long") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%.300s\nwant exit 2 and stderr starting %q, naming the error", code, out, errOut, want)
	}
}
