package evalrun

import (
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
