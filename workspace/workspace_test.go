package workspace_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/tapeloop/tapeloop/workspace"
)

// impl is one FS implementation under test; dir is its directory on disk ("" in memory).
type impl struct {
	name string
	open func(t *testing.T) (w workspace.FS, dir string)
}

var impls = []impl{
	{"disk", func(t *testing.T) (workspace.FS, string) {
		dir := t.TempDir()
		d, err := workspace.NewDisk(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d, dir
	}},
	{"memory", func(t *testing.T) (workspace.FS, string) { return workspace.NewMemory(), "" }},
}

// forEach runs f against every implementation.
func forEach(t *testing.T, f func(t *testing.T, w workspace.FS, dir string)) {
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			w, dir := im.open(t)
			f(t, w, dir)
		})
	}
}

func mustWrite(t *testing.T, w workspace.FS, name, data string) {
	t.Helper()
	if err := w.WriteFile(name, []byte(data)); err != nil {
		t.Fatal(err)
	}
}

func TestClean(t *testing.T) {
	tests := []struct {
		in, want string
		escape   bool
	}{
		{in: "", want: "."},
		{in: ".", want: "."},
		{in: "./x", want: "x"},
		{in: "a/../b", want: "b"},
		{in: "a//b/", want: "a/b"},
		{in: "a/b/..", want: "a"},
		{in: "..", escape: true},
		{in: "../x", escape: true},
		{in: "a/../../x", escape: true},
		{in: "a/b/../../../x", escape: true},
		{in: "/etc/passwd", escape: true},
		{in: "/", escape: true},
		{in: `C:\x`, escape: true},
		{in: "C:x", escape: true},
		{in: `a\b`, escape: true},
		{in: `..\x`, escape: true},
		{in: "a\x00b", escape: true},
		{in: "..x", want: "..x"},
		{in: "ab:c", want: "ab:c"},
	}
	for _, tt := range tests {
		got, err := workspace.Clean(tt.in)
		if tt.escape {
			var pe *fs.PathError
			if !errors.Is(err, workspace.ErrEscape) || !errors.As(err, &pe) || pe.Path != tt.in {
				t.Errorf("Clean(%q) = %q, %v; want a *fs.PathError for %q wrapping ErrEscape", tt.in, got, err, tt.in)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Clean(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestOperations runs the same table of operations against Disk and Memory;
// each step's outcome must match whatever the implementation.
func TestOperations(t *testing.T) {
	type step struct {
		op       string // write, append, read, remove, rename, stat, readdir
		a, b     string // names
		data     string // written data, or expected read content / listing
		wantErr  error  // nil: success; errAny: any error
		wantPath string // the path the error must name (default a)
	}
	errAny := errors.New("any error")
	tests := []struct {
		name  string
		steps []step
	}{
		{"write creates parents and read returns data", []step{
			{op: "write", a: "a/b/c.txt", data: "hi\n"},
			{op: "read", a: "./a/b/../b/c.txt", data: "hi\n"},
			{op: "readdir", a: "a", data: "b/"},
			{op: "stat", a: "a/b/c.txt", data: "3"},
		}},
		{"write overwrites", []step{
			{op: "write", a: "x", data: "long content"},
			{op: "write", a: "x", data: "short"},
			{op: "read", a: "x", data: "short"},
		}},
		{"append creates and appends", []step{
			{op: "append", a: "d/log", data: "one\n"},
			{op: "append", a: "d/log", data: "two\n"},
			{op: "read", a: "d/log", data: "one\ntwo\n"},
		}},
		{"read absent", []step{
			{op: "read", a: "nope", wantErr: fs.ErrNotExist},
			{op: "stat", a: "nope/deeper", wantErr: fs.ErrNotExist},
			{op: "readdir", a: "nope", wantErr: fs.ErrNotExist},
		}},
		{"read a directory", []step{
			{op: "write", a: "d/f", data: "x"},
			{op: "read", a: "d", wantErr: errAny},
			{op: "write", a: "d", data: "x", wantErr: errAny},
			{op: "write", a: "", data: "x", wantErr: errAny},
			{op: "readdir", a: "d/f", wantErr: errAny},
		}},
		{"file in the way of a directory", []step{
			{op: "write", a: "f", data: "x"},
			{op: "write", a: "f/g", data: "y", wantErr: errAny},
			{op: "read", a: "f/g", wantErr: errAny},
			{op: "read", a: "f", data: "x"},
		}},
		{"remove", []step{
			{op: "write", a: "d/f", data: "x"},
			{op: "remove", a: "d", wantErr: errAny},
			{op: "remove", a: "d/f"},
			{op: "read", a: "d/f", wantErr: fs.ErrNotExist},
			{op: "remove", a: "d/f", wantErr: fs.ErrNotExist},
			{op: "remove", a: "d"},
			{op: "readdir", a: ".", data: ""},
			{op: "remove", a: ".", wantErr: errAny},
		}},
		{"rename file creates parents and replaces", []step{
			{op: "write", a: "a", data: "A"},
			{op: "write", a: "x/b", data: "B"},
			{op: "rename", a: "a", b: "n/e/w"},
			{op: "read", a: "n/e/w", data: "A"},
			{op: "read", a: "a", wantErr: fs.ErrNotExist},
			{op: "rename", a: "n/e/w", b: "x/b"},
			{op: "read", a: "x/b", data: "A"},
			{op: "readdir", a: "", data: "n/ x/"},
		}},
		{"rename directory moves subtree", []step{
			{op: "write", a: "src/a/1", data: "1"},
			{op: "write", a: "src/2", data: "2"},
			{op: "rename", a: "src", b: "dst/moved"},
			{op: "read", a: "dst/moved/a/1", data: "1"},
			{op: "read", a: "dst/moved/2", data: "2"},
			{op: "readdir", a: ".", data: "dst/"},
			{op: "rename", a: "dst", b: "dst/moved/inner", wantErr: errAny},
		}},
		{"rename absent creates nothing", []step{
			{op: "rename", a: "nope", b: "d/x", wantErr: fs.ErrNotExist},
			{op: "readdir", a: ".", data: ""},
		}},
		{"rename file onto directory", []step{
			{op: "write", a: "f", data: "x"},
			{op: "write", a: "d/g", data: "y"},
			{op: "rename", a: "f", b: "d", wantErr: errAny},
			{op: "rename", a: "d", b: "f", wantErr: errAny},
		}},
		{"escapes name the path", []step{
			{op: "read", a: "../x", wantErr: workspace.ErrEscape},
			{op: "write", a: "a/../../x", data: "x", wantErr: workspace.ErrEscape},
			{op: "append", a: "/etc/passwd", data: "x", wantErr: workspace.ErrEscape},
			{op: "read", a: `C:\x`, wantErr: workspace.ErrEscape},
			{op: "stat", a: "a\x00b", wantErr: workspace.ErrEscape},
			{op: "remove", a: "../x", wantErr: workspace.ErrEscape},
			{op: "readdir", a: "..", wantErr: workspace.ErrEscape},
			{op: "write", a: "ok", data: "x"},
			{op: "rename", a: "ok", b: "../x", wantErr: workspace.ErrEscape, wantPath: "../x"},
			{op: "rename", a: "../x", b: "ok2", wantErr: workspace.ErrEscape},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forEach(t, func(t *testing.T, w workspace.FS, dir string) {
				for i, s := range tt.steps {
					var got string
					var err error
					switch s.op {
					case "write":
						err = w.WriteFile(s.a, []byte(s.data))
					case "append":
						err = w.AppendFile(s.a, []byte(s.data))
					case "read":
						var b []byte
						b, err = w.ReadFile(s.a)
						got = string(b)
					case "remove":
						err = w.Remove(s.a)
					case "rename":
						err = w.Rename(s.a, s.b)
					case "stat":
						var fi fs.FileInfo
						fi, err = w.Stat(s.a)
						if err == nil {
							got = fmt.Sprint(fi.Size())
						}
					case "readdir":
						var es []fs.DirEntry
						es, err = w.ReadDir(s.a)
						var names []string
						for _, e := range es {
							n := e.Name()
							if e.IsDir() {
								n += "/"
							}
							names = append(names, n)
						}
						got = strings.Join(names, " ")
					}
					switch {
					case s.wantErr == nil && err != nil:
						t.Fatalf("step %d: %s %q: %v", i, s.op, s.a, err)
					case s.wantErr == nil:
						if (s.op == "read" || s.op == "stat" || s.op == "readdir") && got != s.data {
							t.Fatalf("step %d: %s %q = %q, want %q", i, s.op, s.a, got, s.data)
						}
					case err == nil:
						t.Fatalf("step %d: %s %q succeeded, want error %v", i, s.op, s.a, s.wantErr)
					case s.wantErr != errAny && !errors.Is(err, s.wantErr):
						t.Fatalf("step %d: %s %q: %v, want %v", i, s.op, s.a, err, s.wantErr)
					default:
						checkErrorNames(t, err, dir, s.a, s.b, s.wantPath)
					}
				}
			})
		})
	}
}

// checkErrorNames requires err to name a path the caller gave (want, when
// set) and never the directory on disk.
func checkErrorNames(t *testing.T, err error, dir, a, b, want string) {
	t.Helper()
	if dir != "" && strings.Contains(err.Error(), dir) {
		t.Errorf("error %q shows the directory on disk %s", err, dir)
	}
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		if want == "" {
			want = a
		}
		if pe.Path != want {
			t.Errorf("error %q names %q, want %q", err, pe.Path, want)
		}
	case errors.As(err, &le):
		if le.Old != a || le.New != b {
			t.Errorf("error %q names %q, %q, want %q, %q", err, le.Old, le.New, a, b)
		}
	default:
		t.Errorf("error %q (%T) is neither *fs.PathError nor *os.LinkError", err, err)
	}
}

func TestWalkAndSnapshot(t *testing.T) {
	forEach(t, func(t *testing.T, w workspace.FS, _ string) {
		for _, p := range []string{"b/y", "a.txt", "a/z", "a/b/c", "c"} {
			mustWrite(t, w, p, "<"+p+">")
		}
		var got []string
		err := w.Walk(func(p string, d fs.DirEntry) error {
			if d.IsDir() {
				p += "/"
			}
			got = append(got, p)
			return nil
		})
		want := []string{"a/", "a/b/", "a/b/c", "a/z", "a.txt", "b/", "b/y", "c"}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Walk = %q, %v; want %q", got, err, want)
		}

		got = nil
		err = w.Walk(func(p string, d fs.DirEntry) error {
			got = append(got, p)
			if p == "a" {
				return fs.SkipDir
			}
			if p == "b/y" {
				return fs.SkipAll
			}
			return nil
		})
		want = []string{"a", "a.txt", "b", "b/y"}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Walk with skips = %q, %v; want %q", got, err, want)
		}

		stop := errors.New("stop")
		if err := w.Walk(func(string, fs.DirEntry) error { return stop }); err != stop {
			t.Errorf("Walk returned %v, want the callback's error", err)
		}

		snap, err := workspace.Snapshot(w)
		if err != nil {
			t.Fatal(err)
		}
		wantSnap := map[string][]byte{"a.txt": []byte("<a.txt>"), "a/b/c": []byte("<a/b/c>"), "a/z": []byte("<a/z>"), "b/y": []byte("<b/y>"), "c": []byte("<c>")}
		if !reflect.DeepEqual(snap, wantSnap) {
			t.Errorf("Snapshot = %q, want %q", snap, wantSnap)
		}
	})
}

// TestReadEmptyFileIsNotNil: an existing empty file reads as an empty,
// non-nil slice, however it became empty, so that nil can mean "absent".
func TestReadEmptyFileIsNotNil(t *testing.T) {
	forEach(t, func(t *testing.T, w workspace.FS, _ string) {
		if err := w.WriteFile("nil", nil); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteFile("empty", []byte{}); err != nil {
			t.Fatal(err)
		}
		if err := w.AppendFile("appended", nil); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, w, "truncated", "gone")
		if err := w.WriteFile("truncated", nil); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"nil", "empty", "appended", "truncated"} {
			data, err := w.ReadFile(name)
			if err != nil || data == nil || len(data) != 0 {
				t.Errorf("ReadFile(%q) = %#v, %v; want []byte{}, nil", name, data, err)
			}
		}
		snap, err := workspace.Snapshot(w)
		if err != nil {
			t.Fatal(err)
		}
		for name, data := range snap {
			if data == nil {
				t.Errorf("Snapshot[%q] is nil, want []byte{}", name)
			}
		}
	})
}

func TestCopyFS(t *testing.T) {
	src := fstest.MapFS{
		"go.mod":        {Data: []byte("module x\n")},
		"cmd/main.go":   {Data: []byte("package main\n")},
		"empty":         {Mode: fs.ModeDir},
		"link":          {Data: []byte("go.mod"), Mode: fs.ModeSymlink},
		"docs/a/b/c.md": {Data: []byte("# c\n")},
	}
	forEach(t, func(t *testing.T, w workspace.FS, _ string) {
		if err := workspace.CopyFS(w, src); err != nil {
			t.Fatal(err)
		}
		snap, err := workspace.Snapshot(w)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]byte{"go.mod": []byte("module x\n"), "cmd/main.go": []byte("package main\n"), "docs/a/b/c.md": []byte("# c\n")}
		if !reflect.DeepEqual(snap, want) {
			t.Errorf("after CopyFS, Snapshot = %q, want %q", snap, want)
		}
	})
}

func TestMemoryIsolatesData(t *testing.T) {
	m := workspace.NewMemory()
	data := []byte("abc")
	if err := m.WriteFile("f", data); err != nil {
		t.Fatal(err)
	}
	data[0] = 'X'
	got, _ := m.ReadFile("f")
	got[1] = 'Y'
	again, _ := m.ReadFile("f")
	if string(again) != "abc" {
		t.Errorf("content = %q after mutating caller slices, want %q", again, "abc")
	}
	fi, err := m.Stat("f")
	if err != nil || !fi.ModTime().IsZero() || fi.Mode() != 0o644 || fi.Name() != "f" {
		t.Errorf("Stat = %v, %v; want f, mode 0644, zero time", fi, err)
	}
}

func TestDiskSymlinks(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s3cret"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mk := func(target, link string) {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skipf("cannot create symlinks: %v", err)
		}
	}
	mk(filepath.Join(outside, "secret"), "abs-out")
	rel, err := filepath.Rel(dir, filepath.Join(outside, "secret"))
	if err != nil {
		t.Fatal(err)
	}
	mk(rel, "rel-out")
	mk(outside, "dir-out")
	if err := os.WriteFile(filepath.Join(dir, "real"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	mk("real", "in-link")
	mk("sub", "in-dir")
	mk("../real", "sub/up-link")

	d, err := workspace.NewDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	escapes := []struct {
		op   string
		name string
		do   func() error
	}{
		{"read absolute symlink", "abs-out", func() error { _, err := d.ReadFile("abs-out"); return err }},
		{"read relative symlink", "rel-out", func() error { _, err := d.ReadFile("rel-out"); return err }},
		{"write through symlink", "rel-out", func() error { return d.WriteFile("rel-out", []byte("pwned")) }},
		{"append through symlink", "rel-out", func() error { return d.AppendFile("rel-out", []byte("pwned")) }},
		{"read through symlinked dir", "dir-out/secret", func() error { _, err := d.ReadFile("dir-out/secret"); return err }},
		{"write through symlinked dir", "dir-out/new", func() error { return d.WriteFile("dir-out/new", []byte("x")) }},
		{"create dirs through symlinked dir", "dir-out/a/b", func() error { return d.WriteFile("dir-out/a/b", []byte("x")) }},
		{"stat through symlinked dir", "dir-out/secret", func() error { _, err := d.Stat("dir-out/secret"); return err }},
		{"list symlinked dir", "dir-out", func() error { _, err := d.ReadDir("dir-out"); return err }},
		{"rename into symlinked dir", "dir-out/moved", func() error { return d.Rename("real", "dir-out/moved") }},
	}
	for _, e := range escapes {
		err := e.do()
		var pe *fs.PathError
		if !errors.Is(err, workspace.ErrEscape) || !errors.As(err, &pe) || pe.Path != e.name {
			t.Errorf("%s: %v; want *fs.PathError for %q wrapping ErrEscape", e.op, err, e.name)
		}
		if err != nil && (strings.Contains(err.Error(), dir) || strings.Contains(err.Error(), outside)) {
			t.Errorf("%s: error %q shows a directory on disk", e.op, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "s3cret" {
		t.Errorf("outside file changed to %q", b)
	}
	if es, _ := os.ReadDir(outside); len(es) != 1 {
		t.Errorf("outside directory now holds %d entries, want 1", len(es))
	}

	for _, name := range []string{"in-link", "in-dir/../real", "sub/up-link"} {
		if b, err := d.ReadFile(name); err != nil || string(b) != "inside" {
			t.Errorf("ReadFile(%q) = %q, %v; want the inside file", name, b, err)
		}
	}
	if err := d.WriteFile("in-dir/x", []byte("x")); err != nil {
		t.Errorf("write through an inside symlinked dir: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sub", "x")); err != nil || string(b) != "x" {
		t.Errorf("sub/x = %q, %v", b, err)
	}
	// Removing a symlink that points outside removes the link, not its target.
	if err := d.Remove("abs-out"); err != nil {
		t.Errorf("Remove(abs-out): %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "secret")); err != nil {
		t.Errorf("target of removed link: %v", err)
	}
	// Walk reports symlinks without following them; Snapshot leaves them out.
	snap, err := workspace.Snapshot(d)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{"real": []byte("inside"), "sub/x": []byte("x")}
	if !reflect.DeepEqual(snap, want) {
		t.Errorf("Snapshot = %q, want %q", snap, want)
	}
}

func TestNewDiskMissing(t *testing.T) {
	if _, err := workspace.NewDisk(filepath.Join(t.TempDir(), "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("NewDisk(missing) = %v, want fs.ErrNotExist", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	forEach(t, func(t *testing.T, w workspace.FS, _ string) {
		const workers, rounds = 8, 50
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for g := range workers {
			wg.Go(func() {
				own := fmt.Sprintf("g%d/file", g)
				for i := range rounds {
					steps := []error{
						w.WriteFile(own, []byte("x")),
						w.AppendFile("shared/log", []byte(fmt.Sprintf("%d.%d\n", g, i))),
						w.Rename(own, own+".moved"),
						w.Remove(own + ".moved"),
					}
					if _, err := w.ReadDir("."); err != nil {
						steps = append(steps, err)
					}
					if _, err := w.Stat("shared/log"); err != nil {
						steps = append(steps, err)
					}
					if err := w.Walk(func(string, fs.DirEntry) error { return nil }); err != nil {
						steps = append(steps, err)
					}
					if err := errors.Join(steps...); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		b, err := w.ReadFile("shared/log")
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n != workers*rounds {
			t.Errorf("shared/log has %d lines, want %d", n, workers*rounds)
		}
	})
}

// TestMemoryErrorsMatchDisk runs failing operations on a Disk and a Memory
// holding the same tree and requires the same error text.
func TestMemoryErrorsMatchDisk(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Memory reproduces the error texts of Linux")
	}
	d, _ := impls[0].open(t)
	m, _ := impls[1].open(t)
	for _, w := range []workspace.FS{d, m} {
		mustWrite(t, w, "f", "x")
		mustWrite(t, w, "d/g", "y")
		mustWrite(t, w, "e/h", "z")
		if err := w.WriteFile("empty/.keep", nil); err != nil {
			t.Fatal(err)
		}
		if err := w.Remove("empty/.keep"); err != nil {
			t.Fatal(err)
		}
	}
	ops := []struct {
		name string
		do   func(w workspace.FS) error
	}{
		{"read dir", func(w workspace.FS) error { _, err := w.ReadFile("d"); return err }},
		{"read below file", func(w workspace.FS) error { _, err := w.ReadFile("f/x"); return err }},
		{"read absent", func(w workspace.FS) error { _, err := w.ReadFile("nope"); return err }},
		{"write dir", func(w workspace.FS) error { return w.WriteFile("d", nil) }},
		{"write below file", func(w workspace.FS) error { return w.WriteFile("f/x", nil) }},
		{"write root", func(w workspace.FS) error { return w.WriteFile("", nil) }},
		{"append dir", func(w workspace.FS) error { return w.AppendFile("d", nil) }},
		{"remove non-empty dir", func(w workspace.FS) error { return w.Remove("d") }},
		{"remove root", func(w workspace.FS) error { return w.Remove(".") }},
		{"remove absent", func(w workspace.FS) error { return w.Remove("nope") }},
		{"rename absent", func(w workspace.FS) error { return w.Rename("nope", "x") }},
		{"rename file onto dir", func(w workspace.FS) error { return w.Rename("f", "d") }},
		{"rename dir onto file", func(w workspace.FS) error { return w.Rename("d", "f") }},
		{"rename dir onto empty dir", func(w workspace.FS) error { return w.Rename("e", "empty") }},
		{"rename dir beneath itself", func(w workspace.FS) error { return w.Rename("d", "d/sub") }},
		{"rename below file", func(w workspace.FS) error { return w.Rename("f", "f/sub") }},
		{"readdir file", func(w workspace.FS) error { _, err := w.ReadDir("f"); return err }},
		{"stat below file", func(w workspace.FS) error { _, err := w.Stat("f/x"); return err }},
	}
	for _, op := range ops {
		de, me := op.do(d), op.do(m)
		if de == nil || me == nil || de.Error() != me.Error() {
			t.Errorf("%s: disk: %v; memory: %v", op.name, de, me)
		}
	}
}
