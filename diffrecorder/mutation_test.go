package diffrecorder_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/tapeloop/tapeloop/diffrecorder"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/workspace"
)

// Tests that close mutants scripts/mutation found alive: each checks a
// behaviour the other tests left open.

// TestBinaryRenameUnchanged: a binary file moved without a change renders
// as a rename with headers only, like a text file, and no "Binary files
// differ" line, since nothing differs.
func TestBinaryRenameUnchanged(t *testing.T) {
	w, rec := newRecorder(t, map[string]string{"img.png": "\x89PNG\x00\x01"})
	if err := w.Rename("img.png", "pic/img.png"); err != nil {
		t.Fatal(err)
	}
	rec.Record([]tools.Effect{tools.FileRename("img.png", "pic/img.png", 6)})
	d, err := rec.EndTurn()
	if err != nil {
		t.Fatal(err)
	}
	want := "diff --git a/img.png b/pic/img.png\nrename from img.png\nrename to pic/img.png\n"
	if got := d.String(); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
}

// TestQuotedNameKeepsSpaces: a name quoted for another reason (here a double
// quote) keeps its spaces as they are; only control bytes, DEL and non-ASCII
// bytes become octal escapes.
func TestQuotedNameKeepsSpaces(t *testing.T) {
	name := `my "file"`
	w, rec := newRecorder(t, map[string]string{name: "a\n"})
	if err := w.WriteFile(name, []byte("b\n")); err != nil {
		t.Fatal(err)
	}
	rec.Record([]tools.Effect{tools.FileChange(tools.OpModify, name, 2)})
	d, err := rec.EndTurn()
	if err != nil {
		t.Fatal(err)
	}
	want := `diff --git "a/my \"file\"" "b/my \"file\""
--- "a/my \"file\""
+++ "b/my \"file\""
@@ -1 +1 @@
-a
+b
`
	if got := d.String(); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
}

// TestEndTurnReportsUnreadableSubdirectory: when a directory beneath a
// touched directory cannot be listed, EndTurn fails with the workspace's
// error instead of rendering a diff that leaves its files out.
func TestEndTurnReportsUnreadableSubdirectory(t *testing.T) {
	w := workspace.NewMemory()
	for _, p := range []string{"d/a", "d/sub/b"} {
		if err := w.WriteFile(p, []byte("x\n")); err != nil {
			t.Fatal(err)
		}
	}
	broken := &readDirFails{FS: w, dir: "d/sub"}
	rec, err := diffrecorder.New(broken)
	if err != nil {
		t.Fatal(err)
	}
	broken.on = true
	rec.Record([]tools.Effect{tools.FileChange(tools.OpModify, "d", 0)})
	d, err := rec.EndTurn()
	if !errors.Is(err, errUnreadable) {
		t.Errorf("EndTurn = %q, %v; want an error wrapping %v", d, err, errUnreadable)
	}
}

var errUnreadable = errors.New("unreadable")

// readDirFails fails ReadDir of dir once on is set.
type readDirFails struct {
	workspace.FS
	dir string
	on  bool
}

func (r *readDirFails) ReadDir(name string) ([]fs.DirEntry, error) {
	if r.on && name == r.dir {
		return nil, errUnreadable
	}
	return r.FS.ReadDir(name)
}

// TestRenameToLongPath: a rename between names of very different lengths,
// with no content change, renders its headers (the buffer for the text is
// sized from both names).
func TestRenameToLongPath(t *testing.T) {
	long := "some/deeply/nested/directory/holding/the/file.txt"
	for _, tc := range []struct{ from, to string }{{"a", long}, {long, "a"}} {
		w, rec := newRecorder(t, map[string]string{tc.from: "same\n"})
		if err := w.Rename(tc.from, tc.to); err != nil {
			t.Fatal(err)
		}
		rec.Record([]tools.Effect{tools.FileRename(tc.from, tc.to, 5)})
		d, err := rec.EndTurn()
		if err != nil {
			t.Fatal(err)
		}
		want := "diff --git a/" + tc.from + " b/" + tc.to + "\nrename from " + tc.from + "\nrename to " + tc.to + "\n"
		if got := d.String(); got != want {
			t.Errorf("diff:\n%s\nwant:\n%s", got, want)
		}
	}
}

// TestEndTurnReadsFilesWithoutStat: a touched path that is a file is read
// at once; the workspace is asked for its status only when it cannot be
// read as a file (a directory, a path that is gone, an error), so that a
// turn on a disk workspace costs one system call less per file.
func TestEndTurnReadsFilesWithoutStat(t *testing.T) {
	w := workspace.NewMemory()
	for _, p := range []string{"a", "d/b"} {
		if err := w.WriteFile(p, []byte("x\n")); err != nil {
			t.Fatal(err)
		}
	}
	counted := &statCounter{FS: w}
	rec, err := diffrecorder.New(counted)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteFile("a", []byte("y\n"))
	rec.Record([]tools.Effect{tools.FileChange(tools.OpModify, "a", 2)})
	if d, err := rec.EndTurn(); err != nil || len(d.Files) != 1 || counted.n != 0 {
		t.Errorf("a file: EndTurn = %q, %v after %d Stat calls; want its diff after none", d, err, counted.n)
	}
	w.WriteFile("d/b", []byte("y\n"))
	w.Remove("a")
	rec.Record([]tools.Effect{tools.FileChange(tools.OpModify, "d", 0), tools.FileChange(tools.OpDelete, "a", 0)})
	if d, err := rec.EndTurn(); err != nil || len(d.Files) != 2 || counted.n != 2 {
		t.Errorf("a directory and a removed file: EndTurn = %q, %v after %d Stat calls; want two diffs after two", d, err, counted.n)
	}
}

// TestEndTurnReportsUnreadableFile: a touched file that exists but cannot
// be read fails EndTurn with the workspace's error.
func TestEndTurnReportsUnreadableFile(t *testing.T) {
	w := workspace.NewMemory()
	if err := w.WriteFile("a", []byte("x\n")); err != nil {
		t.Fatal(err)
	}
	broken := &readFileFails{FS: w, name: "a"}
	rec, err := diffrecorder.New(broken)
	if err != nil {
		t.Fatal(err)
	}
	broken.on = true
	rec.Record([]tools.Effect{tools.FileChange(tools.OpModify, "a", 2)})
	if d, err := rec.EndTurn(); !errors.Is(err, errUnreadable) {
		t.Errorf("EndTurn = %q, %v; want an error wrapping %v", d, err, errUnreadable)
	}
}

// statCounter counts Stat calls.
type statCounter struct {
	workspace.FS
	n int
}

func (s *statCounter) Stat(name string) (fs.FileInfo, error) {
	s.n++
	return s.FS.Stat(name)
}

// readFileFails fails ReadFile of name once on is set.
type readFileFails struct {
	workspace.FS
	name string
	on   bool
}

func (r *readFileFails) ReadFile(name string) ([]byte, error) {
	if r.on && name == r.name {
		return nil, errUnreadable
	}
	return r.FS.ReadFile(name)
}
