package evalrun

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// importDocPath is the import command's page.
const importDocPath = "../docs/import.md"

// TestImportDocExample runs the complete example of docs/import.md: the
// trace of its json block imported must print its text block and write
// its yaml block, byte for byte, and the written scenario must replay.
func TestImportDocExample(t *testing.T) {
	data, err := os.ReadFile(importDocPath)
	if err != nil {
		t.Fatal(err)
	}
	_, example, ok := strings.Cut(string(data), "## A complete example")
	if !ok {
		t.Fatalf("%s has no complete example", importDocPath)
	}
	block := func(lang string) string {
		m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindStringSubmatch(example)
		if m == nil {
			t.Fatalf("the example of %s has no %s block", importDocPath, lang)
		}
		return m[1]
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "trace.json"), []byte(block("json")), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, stdout, stderr := runCmd(t, "import", "--out", "scenarios/imported", "trace.json")
	if code != exitOK || stdout != block("text") {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s\nstderr:\n%s", code, stdout, block("text"), stderr)
	}
	got, err := os.ReadFile(filepath.Join("scenarios", "imported", "trace.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := block("yaml"); string(got) != want {
		t.Errorf("the scenario written differs from the page's:\n%s\nthe page:\n%s", got, want)
	}
	if code, stdout, stderr := runCmd(t, "replay", "scenarios/imported"); code != exitOK {
		t.Errorf("replay: exit %d\n%s%s", code, stdout, stderr)
	}
}
