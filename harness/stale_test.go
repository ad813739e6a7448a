package harness

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestStaleTemps checks which names count as the temporary file of an
// interrupted golden update: only ".NAME.golden.yaml.tmpDIGITS" (or .yml).
func TestStaleTemps(t *testing.T) {
	dir := t.TempDir()
	stale := []string{".a.golden.yaml.tmp123", "sub/.b.golden.yml.tmp9", ".a.golden.yaml.tmp4567"}
	kept := []string{"a.golden.yaml", "a.golden.yaml.tmp1", ".a.golden.yaml.tmp", ".a.golden.yaml.tmpx1", ".a.yaml.tmp1", ".notes.tmp1"}
	for _, n := range append(append([]string{}, stale...), kept...) {
		writeFile(t, filepath.Join(dir, n), "partial")
	}
	got, err := StaleTemps(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range stale {
		want = append(want, filepath.Join(dir, n))
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("StaleTemps = %v\nwant %v", got, want)
	}
}

// TestUpdateGoldenRemovesItsStaleTemps checks that updating a golden removes
// the temporary files an interrupted update of the same golden left, and no
// other golden's.
func TestUpdateGoldenRemovesItsStaleTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.golden.yaml")
	writeFile(t, path, "a: 1\n")
	mine := filepath.Join(dir, ".s.golden.yaml.tmp123")
	other := filepath.Join(dir, ".t.golden.yaml.tmp123")
	writeFile(t, mine, "a: ")
	writeFile(t, other, "b: ")
	if _, err := UpdateGolden(path, []byte("a: 1\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mine); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file of s is still there (%v)", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another golden's temporary file was removed: %v", err)
	}
}
