package eval

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSavedTrialsStayInTheirFolder: a saved trial's path is confined to
// the folder --save-trials named: a ".." or a symbolic link out of it is
// refused, and nothing is written outside (issue 21, item 8).
func TestSavedTrialsStayInTheirFolder(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "trials")
	outside := filepath.Join(base, "outside")
	os.MkdirAll(outside, 0o755)
	if err := writeConfined(dir, filepath.Join("a", "m", "trial-1.yaml"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "a", "m", "trial-1.yaml")); err != nil || string(data) != "x" {
		t.Fatalf("the trial was not written: %q %v", data, err)
	}
	os.Symlink(outside, filepath.Join(dir, "link"))
	for _, rel := range []string{filepath.Join("..", "outside", "t.yaml"), filepath.Join("link", "t.yaml"), filepath.Join("a", "..", "..", "outside", "t.yaml")} {
		if err := writeConfined(dir, rel, []byte("x")); err == nil {
			t.Errorf("%s was written", rel)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("something was written outside: %v", entries)
	}
}
