package workspace_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/tapeloop/tapeloop/workspace"
)

// TestDiskRefusesHardLinksAndSpecialFiles checks each file operation of Disk
// against a file with a second hard link (here to a file outside the root,
// which os.Root does not stop) and against a named pipe: a linked file is not
// read or written through, a special file is never opened (opening a pipe
// would block), and the refusal names the path given.
func TestDiskRefusesHardLinksAndSpecialFiles(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("s3cret"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Link(outside, filepath.Join(dir, "linked")); err != nil {
		t.Skipf("cannot make a hard link here: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	d, err := workspace.NewDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ops := []struct {
		name string
		do   func(name string) error
	}{
		{"read", func(n string) error { _, err := d.ReadFile(n); return err }},
		{"write", func(n string) error { return d.WriteFile(n, []byte("pwned")) }},
		{"append", func(n string) error { return d.AppendFile(n, []byte("pwned")) }},
	}
	for _, target := range []struct {
		name string
		want error
		text string
	}{
		{"linked", workspace.ErrLinked, "file has more than one hard link"},
		{"pipe", workspace.ErrNotRegular, "not a regular file"},
	} {
		for _, op := range ops {
			err := op.do(target.name)
			var pe *fs.PathError
			if !errors.Is(err, target.want) || !errors.As(err, &pe) || pe.Path != target.name || pe.Op != op.name {
				t.Errorf("%s %s: %v; want *fs.PathError{%s %s} wrapping %v", op.name, target.name, err, op.name, target.name, target.want)
			} else if want := op.name + " " + target.name + ": " + target.text; err.Error() != want {
				t.Errorf("%s %s: %q, want %q", op.name, target.name, err, want)
			}
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "s3cret" {
		t.Errorf("the file outside now holds %q", b)
	}
	// A plain file is still read, written over and appended to.
	if err := d.WriteFile("plain", []byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteFile("plain", []byte("b")); err != nil {
		t.Fatal(err)
	}
	if err := d.AppendFile("plain", []byte("c")); err != nil {
		t.Fatal(err)
	}
	if b, err := d.ReadFile("plain"); err != nil || string(b) != "bc" {
		t.Errorf("plain = %q, %v; want bc", b, err)
	}
}
