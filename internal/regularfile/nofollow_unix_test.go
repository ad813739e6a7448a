//go:build unix

package regularfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestReadNoFollowReadsOnlyPlainFiles: a regular file is read whole (and
// one over the limit refused); a symbolic link is refused whatever it
// leads to, a regular file beside it included; a named pipe and a
// directory are refused as Read refuses them.
func TestReadNoFollowReadsOnlyPlainFiles(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.yaml")
	if err := os.WriteFile(plain, []byte("name: a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadNoFollow(plain, 1<<20); err != nil || string(data) != "name: a\n" {
		t.Errorf("ReadNoFollow(plain) = %q, %v; want its content", data, err)
	}
	if _, err := ReadNoFollow(plain, 3); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadNoFollow(plain, 3) = %v; want ErrTooLarge", err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink("plain.yaml", link); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadNoFollow(link, 1<<20); err == nil {
		t.Errorf("ReadNoFollow(a link to a regular file) = %q; want an error", data)
	}
	for name, p := range special(t, dir) {
		if data, err := ReadNoFollow(p, 1<<20); err == nil {
			t.Errorf("ReadNoFollow(%s) = %d bytes; want an error", name, len(data))
		} else if name == "fifo" || name == "directory" {
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("ReadNoFollow(%s) = %v; want ErrNotRegular", name, err)
			}
		}
	}
}
