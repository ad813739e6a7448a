package workspace_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tapeloop/tapeloop/workspace"
)

// TestDiskListsTheRootAfresh: the root's listing (one handle, rewound for
// each listing) shows every change since the last one, made through the
// Disk or beside it, and fails after Close.
func TestDiskListsTheRootAfresh(t *testing.T) {
	dir := t.TempDir()
	d, err := workspace.NewDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	list := func(want ...string) {
		t.Helper()
		es, err := d.ReadDir(".")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range es {
			got = append(got, e.Name())
		}
		if !slices.Equal(got, want) {
			t.Fatalf("listing %q, want %q", got, want)
		}
	}
	list()
	if err := d.WriteFile("b", []byte("b")); err != nil {
		t.Fatal(err)
	}
	list("b")
	list("b")
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	list("a", "b", "c")
	if err := os.Remove(filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	list("a", "c")
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadDir("."); err == nil {
		t.Error("the root listed after Close")
	}
}
