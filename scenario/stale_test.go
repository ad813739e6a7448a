package scenario

import (
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

// TestIsStaleTempNeedsAGoldenName: a temporary file is a golden update's
// only when a name comes before .golden.yaml.
func TestIsStaleTempNeedsAGoldenName(t *testing.T) {
	if !IsStaleTemp(".a.golden.yaml.tmp5") || IsStaleTemp("..golden.yaml.tmp5") {
		t.Errorf("IsStaleTemp(.a.golden.yaml.tmp5, ..golden.yaml.tmp5) = %v, %v; want true, false", IsStaleTemp(".a.golden.yaml.tmp5"), IsStaleTemp("..golden.yaml.tmp5"))
	}
}
