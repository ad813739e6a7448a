package evalrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRebaseJSONDoc: a changed system prompt, rebased with --dry-run
// --json, gives the document docs/record.md shows; with --json - the
// document is standard output and the text goes to standard error.
func TestRebaseJSONDoc(t *testing.T) {
	doc := absDoc(t, "../docs/record.md")
	path := pinnedNoteTaker(t)
	t.Chdir(filepath.Dir(filepath.Dir(filepath.Dir(path))))
	rel := filepath.Join("scenarios", "notes", "read.yaml")
	edit(t, rel, "You read notes.", "You read notes carefully.")
	code, out, errOut := runCmd(t, "rebase", "--dry-run", "--json", "rebase.json", rel)
	if code != exitOK || !strings.Contains(out, "would rebase  notes/read  (offered)") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	got, err := os.ReadFile("rebase.json")
	if err != nil {
		t.Fatal(err)
	}
	checkDocJSON(t, doc, rebaseFormat, got, &rebaseDocument{})
	code, stdout, stderr := runCmd(t, "rebase", "--dry-run", "--json", "-", rel)
	if code != exitOK || stdout != string(got) || !strings.Contains(stderr, "would rebase  notes/read") {
		t.Errorf("--json -: exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// rebase --json counts unchanged, refused and failed scenarios.
func TestRebaseJSONCountsEachStatus(t *testing.T) {
	read := func(path string) rebaseDocument {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var d rebaseDocument
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	dir := newScenarios(t, map[string]string{"math/add.yaml": okScenario, "math/broken.yaml": "format: tapeloop/v1\nsetup: [\n"})
	out := filepath.Join(t.TempDir(), "failed.json")
	runCmd(t, "rebase", "--json", out, dir)
	if d := read(out); d.Failed != 2 || d.Refused != 0 || d.Rebased != 0 {
		t.Errorf("a scenario without a golden and a file that does not load: %d failed, %d refused, %d rebased; want 2, 0, 0", d.Failed, d.Refused, d.Rebased)
	}
	path := pinnedNoteTaker(t)
	out = filepath.Join(t.TempDir(), "unchanged.json")
	runCmd(t, "rebase", "--json", out, path)
	if d := read(out); d.Unchanged != 1 || d.Rebased != 0 || d.Failed != 0 {
		t.Errorf("a scenario the agent still matches: %d unchanged, %d rebased, %d failed; want 1, 0, 0", d.Unchanged, d.Rebased, d.Failed)
	}
	edit(t, path, "required: [word]", "required: [word, lang]")
	out = filepath.Join(t.TempDir(), "refused.json")
	if code, text, _ := runCmd(t, "rebase", "--json", out, path); !strings.Contains(text, "REFUSED") {
		t.Fatalf("exit %d, want the scenario refused:\n%s", code, text)
	}
	if d := read(out); d.Refused != 1 || d.Failed != 0 {
		t.Errorf("a response the schema now refuses: %d refused, %d failed; want 1, 0", d.Refused, d.Failed)
	}
}
