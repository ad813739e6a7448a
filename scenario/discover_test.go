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

// TestDiscoverOverlapping: a scenario reached through overlapping
// arguments (a folder and its subfolder, the same file twice, a folder
// through a symbolic link to it) is discovered once, under the name it
// first has in the sorted list; a symbolic link named as a folder is
// walked; a link to a scenario file is a file of its own (it has its own
// golden). Orphans are listed once too.
func TestDiscoverOverlapping(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"s/a.yaml", "s/sub/b.yaml", "s/sub/gone.golden.yaml"} {
		writeFile(t, filepath.Join(dir, name), "")
	}
	alias := filepath.Join(dir, "alias")
	if err := os.Symlink("s", alias); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := os.Symlink("a.yaml", filepath.Join(dir, "s", "linked.yaml")); err != nil {
		t.Fatal(err)
	}
	s := filepath.Join(dir, "s")
	a, b, linked := filepath.Join(s, "a.yaml"), filepath.Join(s, "sub", "b.yaml"), filepath.Join(s, "linked.yaml")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"folder and subfolder", []string{s, filepath.Join(s, "sub")}, []string{a, linked, b}},
		{"subfolder first", []string{filepath.Join(s, "sub"), s}, []string{a, linked, b}},
		{"one file twice", []string{b, b, filepath.Join(s, "sub", ".", "b.yaml")}, []string{b}},
		{"the link to the folder", []string{alias}, []string{filepath.Join(alias, "a.yaml"), filepath.Join(alias, "linked.yaml"), filepath.Join(alias, "sub", "b.yaml")}},
		{"folder and its link", []string{s, alias, filepath.Join(alias, "sub") + "/"}, []string{filepath.Join(alias, "a.yaml"), filepath.Join(alias, "linked.yaml"), filepath.Join(alias, "sub", "b.yaml")}},
	} {
		got, err := Discover(c.args...)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: Discover = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	gone := filepath.Join(s, "sub", "gone.golden.yaml")
	if got, err := Orphans(s, filepath.Join(s, "sub"), alias); err != nil || len(got) != 1 || Identity(got[0]) != Identity(gone) {
		t.Errorf("Orphans = %q, %v; want %s once", got, err, gone)
	}
}
