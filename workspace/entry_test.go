package workspace_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"

	"github.com/tapeloop/tapeloop/workspace"
)

// linkedDisk returns a Disk holding one entry of each kind an agent can
// make without privileges: plain and executable files, symbolic links
// (out of the root, dangling, inside), a named pipe, two names of one file
// and a name of a file outside the root, with a directory.
func linkedDisk(t *testing.T) (*workspace.Disk, string) {
	t.Helper()
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("s3cret"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "alpha\n", 0o644)
	write("run.sh", "#!/bin/sh\n", 0o755)
	write("d/z.txt", "zed\n", 0o644)
	for name, target := range map[string]string{"esc": "/etc/passwd", "dangling": "nowhere/x", "d/up": "../a.txt"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skipf("cannot make a symbolic link here: %v", err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "p"), 0o644); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	// d/z.txt and b.txt are one file: b.txt comes first in byte order.
	if err := os.Link(filepath.Join(dir, "d/z.txt"), filepath.Join(dir, "b.txt")); err != nil {
		t.Skipf("cannot make a hard link here: %v", err)
	}
	if err := os.Link(outside, filepath.Join(dir, "out")); err != nil {
		t.Skipf("cannot make a hard link to %s here: %v", outside, err)
	}
	d, err := workspace.NewDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, dir
}

// TestEntriesShowEveryKind: Entries and ReadEntry show every entry of a
// disk workspace as what it is: a link by its target as written, never
// followed, a named pipe by its kind, never opened (so nothing blocks), a
// file of two names inside once with its content and once as a link to
// that name, a file linked from outside without its content.
func TestEntriesShowEveryKind(t *testing.T) {
	d, _ := linkedDisk(t)
	want := map[string]workspace.Entry{
		"a.txt":    {Data: []byte("alpha\n")},
		"run.sh":   {Data: []byte("#!/bin/sh\n"), Exec: true},
		"b.txt":    {Data: []byte("zed\n")},
		"d/z.txt":  {Kind: workspace.KindHardLink, Target: "b.txt"},
		"d/up":     {Kind: workspace.KindSymlink, Target: "../a.txt"},
		"esc":      {Kind: workspace.KindSymlink, Target: "/etc/passwd"},
		"dangling": {Kind: workspace.KindSymlink, Target: "nowhere/x"},
		"p":        {Kind: workspace.KindNamedPipe},
		"out":      {Kind: workspace.KindOutsideLink},
	}
	got, err := workspace.Entries(d)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Entries:\n got %v\nwant %v", got, want)
	}
	for name, w := range want {
		e, err := workspace.ReadEntry(d, name)
		if err != nil || !e.Equal(w) {
			t.Errorf("ReadEntry(%s) = %v, %v; want %v", name, e, err, w)
		}
	}
	if e, err := workspace.ReadEntry(d, "d"); err != nil || e.Kind != workspace.KindDir {
		t.Errorf("ReadEntry(d) = %v, %v; want a directory", e, err)
	}
	if _, err := workspace.ReadEntry(d, "gone"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadEntry(gone) = %v; want fs.ErrNotExist", err)
	}
	if _, err := workspace.ReadEntry(d, "../x"); !errors.Is(err, workspace.ErrEscape) {
		t.Errorf("ReadEntry(../x) = %v; want ErrEscape", err)
	}
	if _, err := workspace.ReadEntry(d, "esc/x"); err == nil {
		t.Errorf("ReadEntry(esc/x) read through a link out of the root")
	}
}

// TestEntriesOfMemory: a memory workspace's entries are its files, with
// their content, as Snapshot has them.
func TestEntriesOfMemory(t *testing.T) {
	m := workspace.NewMemory()
	mustWrite(t, m, "a/b.txt", "b")
	mustWrite(t, m, "c", "")
	got, err := workspace.Entries(m)
	want := map[string]workspace.Entry{"a/b.txt": {Data: []byte("b")}, "c": {Data: []byte{}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Entries = %v, %v; want %v", got, err, want)
	}
	if e, err := workspace.ReadEntry(m, "a"); err != nil || e.Kind != workspace.KindDir {
		t.Errorf("ReadEntry(a) = %v, %v; want a directory", e, err)
	}
}

// TestEntryString: the text the golden shows in place of content.
func TestEntryString(t *testing.T) {
	for _, c := range []struct {
		e    workspace.Entry
		want string
	}{
		{workspace.Entry{Kind: workspace.KindSymlink, Target: "/etc/passwd"}, "<symbolic link to /etc/passwd>"},
		{workspace.Entry{Kind: workspace.KindHardLink, Target: "b.txt"}, "<hard link to b.txt>"},
		{workspace.Entry{Kind: workspace.KindOutsideLink}, "<hard link to a file outside the workspace>"},
		{workspace.Entry{Kind: workspace.KindNamedPipe}, "<named pipe>"},
		{workspace.Entry{Kind: workspace.KindSocket}, "<socket>"},
		{workspace.Entry{Kind: workspace.KindCharDevice}, "<character device>"},
		{workspace.Entry{Kind: workspace.KindBlockDevice}, "<block device>"},
		{workspace.Entry{Data: []byte("abc")}, "<regular file, 3 bytes>"},
	} {
		if got := c.e.String(); got != c.want {
			t.Errorf("%#v.String() = %q, want %q", c.e, got, c.want)
		}
	}
}
