package regularfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// special makes, in dir, each kind of file that is not what it seems and
// returns their paths by case name. Cases the machine cannot make are left out.
func special(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, target := range map[string]string{"dev-zero": "/dev/zero", "dev-urandom": "/dev/urandom"} {
		if _, err := os.Stat(target); err != nil {
			continue
		}
		p := filepath.Join(dir, name+".yaml")
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err == nil {
		out["fifo"] = fifo
	}
	out["directory"] = t.TempDir()
	return out
}

func TestReadRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	cases := special(t, dir)
	for _, want := range []string{"dev-zero", "dev-urandom", "fifo"} {
		if cases[want] == "" {
			t.Logf("cannot make a %s here; that case is not tested", want)
		}
	}
	kinds := map[string]string{"dev-zero": "a character device", "dev-urandom": "a character device", "fifo": "a named pipe", "directory": "a directory"}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			data, err := Read(p, 1<<20)
			if !errors.Is(err, ErrNotRegular) {
				t.Fatalf("Read(%s) = %d bytes, %v; want ErrNotRegular", name, len(data), err)
			}
			if want := "reading " + p + ": not a regular file (" + kinds[name] + "); only regular files are read"; err.Error() != want {
				t.Errorf("error:\n got %s\nwant %s", err, want)
			}
			root, err := os.OpenRoot(filepath.Dir(p))
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			// The device links lead out of the root, which refuses them first.
			if data, err := ReadIn(root, filepath.Base(p), 1<<20); err == nil {
				t.Errorf("ReadIn(%s) read %d bytes", name, len(data))
			} else if name == "fifo" && !errors.Is(err, ErrNotRegular) {
				t.Errorf("ReadIn(fifo): %v; want ErrNotRegular", err)
			}
		})
	}
}

// TestReadCountsTheBytesRead checks the limit on the bytes themselves: a file
// of exactly the limit is read, one byte more is refused, and a huge sparse
// file (4 GiB that Stat reports, none of it stored) is refused after reading
// no more than the limit.
func TestReadCountsTheBytesRead(t *testing.T) {
	dir := t.TempDir()
	const limit = 1000
	cases := []struct {
		name string
		size int64
		ok   bool
	}{
		{"empty", 0, true},
		{"at the limit", limit, true},
		{"one byte over", limit + 1, false},
		{"sparse 4 GiB", 4 << 30, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(c.size); err != nil {
				t.Skipf("cannot make a %d-byte file here: %v", c.size, err)
			}
			f.Close()
			data, err := Read(p, limit)
			switch {
			case c.ok && (err != nil || int64(len(data)) != c.size):
				t.Fatalf("Read = %d bytes, %v; want %d bytes", len(data), err, c.size)
			case !c.ok && !errors.Is(err, ErrTooLarge):
				t.Fatalf("Read = %d bytes, %v; want ErrTooLarge", len(data), err)
			case !c.ok && err.Error() != "reading "+p+": file too large: more than the limit of 1000 bytes":
				t.Errorf("error: %s", err)
			}
		})
	}
}

func TestReadMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "absent.yaml")
	_, err := Read(p, 10)
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != "reading "+p+": no such file or directory" {
		t.Errorf("got %v; want fs.ErrNotExist naming the file once", err)
	}
}

func TestReadInRefusesASymlinkOut(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if data, err := ReadIn(root, "link", 10); err == nil {
		t.Errorf("read %q through a symbolic link out of the root", data)
	}
}
