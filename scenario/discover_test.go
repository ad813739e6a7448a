package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOrphans(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.yaml"), "")
	writeFile(t, filepath.Join(dir, "a.golden.yaml"), "")
	writeFile(t, filepath.Join(dir, "gone.golden.yaml"), "")
	writeFile(t, filepath.Join(dir, "g", "b.yaml"), "")
	writeFile(t, filepath.Join(dir, "g", "b.golden.yaml"), "")
	writeFile(t, filepath.Join(dir, "g", "renamed.golden.yaml"), "")
	writeFile(t, filepath.Join(dir, "g", "c.yaml"), "") // no golden: not an orphan
	writeFile(t, filepath.Join(dir, "y.yml"), "")
	writeFile(t, filepath.Join(dir, "y.golden.yml"), "")
	writeFile(t, filepath.Join(dir, "x.yaml"), "")
	writeFile(t, filepath.Join(dir, "x.golden.yml"), "") // x.yml is gone

	got, err := Orphans(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "g", "renamed.golden.yaml"), filepath.Join(dir, "gone.golden.yaml"), filepath.Join(dir, "x.golden.yml")}
	if !slices.Equal(got, want) {
		t.Errorf("Orphans = %v, want %v", got, want)
	}
	if _, err := Orphans(filepath.Join(dir, "nope")); err == nil {
		t.Error("Orphans of a missing folder: no error")
	}
}

func TestDiscover(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{
		"z.yaml", "a.yaml", "a.golden.yaml", "notes.txt", "b/c.yaml", "b/c.golden.yaml",
		"b/testdata/skipped.yaml", "fixtures/skipped.yaml", "b/fixtures/workspaces/skipped.yaml",
		".hidden/skipped.yaml", "b/a.yml",
	} {
		writeFile(t, filepath.Join(dir, name), "")
	}
	got, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b", "a.yml"), filepath.Join(dir, "b", "c.yaml"), filepath.Join(dir, "z.yaml")}
	if !slices.Equal(got, want) {
		t.Errorf("Discover(dir) = %v, want %v", got, want)
	}

	// Files are taken as given (even a golden or one under testdata); the
	// result is sorted across arguments.
	explicit := filepath.Join(dir, "b", "testdata", "skipped.yaml")
	got, err = Discover(filepath.Join(dir, "z.yaml"), explicit, filepath.Join(dir, "b"))
	if err != nil {
		t.Fatal(err)
	}
	want = []string{filepath.Join(dir, "b", "a.yml"), filepath.Join(dir, "b", "c.yaml"), explicit, filepath.Join(dir, "z.yaml")}
	if !slices.Equal(got, want) {
		t.Errorf("Discover(files and folder) = %v, want %v", got, want)
	}

	// A scenarios folder that is itself called testdata is still walked.
	td := filepath.Join(dir, "b", "testdata")
	if got, err := Discover(td); err != nil || !slices.Equal(got, []string{explicit}) {
		t.Errorf("Discover(testdata) = %v, %v", got, err)
	}

	if _, err := Discover(filepath.Join(dir, "nope")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Discover(missing) = %v, want fs.ErrNotExist", err)
	}
}

func TestGoldenPath(t *testing.T) {
	for in, want := range map[string]string{
		"files/append-line.yaml": "files/append-line.golden.yaml",
		"a.b.yaml":               "a.b.golden.yaml",
	} {
		if got := GoldenPath(in); got != want {
			t.Errorf("GoldenPath(%q) = %q, want %q", in, got, want)
		}
	}
}
