package diffrecorder_test

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/diffrecorder"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/workspace"
)

// newRecorder returns a Memory workspace holding files and a Recorder on it.
func newRecorder(t testing.TB, files map[string]string) (*workspace.Memory, *diffrecorder.Recorder) {
	t.Helper()
	w := workspace.NewMemory()
	for p, data := range files {
		if err := w.WriteFile(p, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := diffrecorder.New(w)
	if err != nil {
		t.Fatal(err)
	}
	return w, rec
}

func numbered(from, to int) string {
	var sb strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&sb, "%d\n", i)
	}
	return sb.String()
}

func TestEndTurnText(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		turn  func(w workspace.FS) []tools.Effect
		want  string
		ops   string // "op path [from]" per file, space-joined
	}{
		{
			name: "create",
			turn: func(w workspace.FS) []tools.Effect {
				w.WriteFile("new.txt", []byte("hello\nworld\n"))
				return []tools.Effect{tools.FileChange(tools.OpCreate, "new.txt", 12)}
			},
			want: `diff --git a/new.txt b/new.txt
new file mode 100644
--- /dev/null
+++ b/new.txt
@@ -0,0 +1,2 @@
+hello
+world
`,
			ops: "create new.txt",
		},
		{
			name:  "delete",
			files: map[string]string{"old.txt": "a\nb\n"},
			turn: func(w workspace.FS) []tools.Effect {
				w.Remove("old.txt")
				return []tools.Effect{tools.FileChange(tools.OpDelete, "old.txt", 0)}
			},
			want: `diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-a
-b
`,
			ops: "delete old.txt",
		},
		{
			name:  "modify middle line",
			files: map[string]string{"n.txt": numbered(1, 9)},
			turn: func(w workspace.FS) []tools.Effect {
				w.WriteFile("n.txt", []byte(strings.Replace(numbered(1, 9), "5\n", "five\n", 1)))
				return []tools.Effect{tools.FileChange(tools.OpModify, "n.txt", 0)}
			},
			want: `diff --git a/n.txt b/n.txt
--- a/n.txt
+++ b/n.txt
@@ -2,7 +2,7 @@
 2
 3
 4
-5
+five
 6
 7
 8
`,
			ops: "modify n.txt",
		},
		{
			name:  "append with trailing newline",
			files: map[string]string{"log": "a\nb\n"},
			turn: func(w workspace.FS) []tools.Effect {
				w.AppendFile("log", []byte("c\n"))
				return []tools.Effect{tools.FileChange(tools.OpAppend, "log", 0)}
			},
			want: `diff --git a/log b/log
--- a/log
+++ b/log
@@ -1,2 +1,3 @@
 a
 b
+c
`,
			ops: "modify log",
		},
		{
			name:  "append without trailing newline",
			files: map[string]string{"log": "a\nb"},
			turn: func(w workspace.FS) []tools.Effect {
				w.AppendFile("log", []byte("\nc"))
				return []tools.Effect{tools.FileChange(tools.OpAppend, "log", 0)}
			},
			want: `diff --git a/log b/log
--- a/log
+++ b/log
@@ -1,2 +1,3 @@
 a
-b
\ No newline at end of file
+b
+c
\ No newline at end of file
`,
			ops: "modify log",
		},
		{
			name:  "rename unchanged",
			files: map[string]string{"a.txt": "same\n"},
			turn: func(w workspace.FS) []tools.Effect {
				w.Rename("a.txt", "dir/b.txt")
				return []tools.Effect{tools.FileRename("a.txt", "dir/b.txt", 5)}
			},
			want: `diff --git a/a.txt b/dir/b.txt
rename from a.txt
rename to dir/b.txt
`,
			ops: "rename dir/b.txt a.txt",
		},
		{
			name:  "rename and modify",
			files: map[string]string{"a.go": "package a\n\nfunc A() {}\n"},
			turn: func(w workspace.FS) []tools.Effect {
				w.Rename("a.go", "b.go")
				w.WriteFile("b.go", []byte("package b\n\nfunc A() {}\n"))
				return []tools.Effect{tools.FileRename("a.go", "b.go", 0), tools.FileChange(tools.OpModify, "b.go", 0)}
			},
			want: `diff --git a/a.go b/b.go
rename from a.go
rename to b.go
--- a/a.go
+++ b/b.go
@@ -1,3 +1,3 @@
-package a
+package b
 
 func A() {}
`,
			ops: "rename b.go a.go",
		},
		{
			name:  "binary",
			files: map[string]string{"img.png": "\x89PNG\x00\x01"},
			turn: func(w workspace.FS) []tools.Effect {
				w.WriteFile("img.png", []byte("\x89PNG\x00\x02"))
				w.WriteFile("latin1.txt", []byte("caf\xe9\n"))
				return []tools.Effect{tools.FileChange(tools.OpModify, "img.png", 0), tools.FileChange(tools.OpCreate, "latin1.txt", 0)}
			},
			want: `diff --git a/img.png b/img.png
Binary files a/img.png and b/img.png differ
diff --git a/latin1.txt b/latin1.txt
new file mode 100644
Binary files /dev/null and b/latin1.txt differ
`,
			ops: "modify img.png create latin1.txt",
		},
		{
			name: "empty file create",
			turn: func(w workspace.FS) []tools.Effect {
				w.WriteFile("empty", nil)
				return []tools.Effect{tools.FileChange(tools.OpCreate, "empty", 0)}
			},
			want: `diff --git a/empty b/empty
new file mode 100644
index 0000000..e69de29
`,
			ops: "create empty",
		},
		{
			name:  "empty file delete",
			files: map[string]string{"empty": ""},
			turn: func(w workspace.FS) []tools.Effect {
				w.Remove("empty")
				return []tools.Effect{tools.FileChange(tools.OpDelete, "empty", 0)}
			},
			want: `diff --git a/empty b/empty
deleted file mode 100644
index e69de29..0000000
`,
			ops: "delete empty",
		},
		{
			name:  "emptied and filled",
			files: map[string]string{"full": "a\n", "empty": ""},
			turn: func(w workspace.FS) []tools.Effect {
				w.WriteFile("full", nil)
				w.WriteFile("empty", []byte("b"))
				return []tools.Effect{tools.FileChange(tools.OpModify, "full", 0), tools.FileChange(tools.OpModify, "empty", 0)}
			},
			want: `diff --git a/empty b/empty
--- a/empty
+++ b/empty
@@ -0,0 +1 @@
+b
\ No newline at end of file
diff --git a/full b/full
--- a/full
+++ b/full
@@ -1 +0,0 @@
-a
`,
			ops: "modify empty modify full",
		},
		{
			name:  "touched but unchanged",
			files: map[string]string{"same": "x\n"},
			turn: func(w workspace.FS) []tools.Effect {
				w.WriteFile("same", []byte("x\n"))
				w.WriteFile("tmp", []byte("y"))
				w.Remove("tmp")
				return []tools.Effect{tools.FileChange(tools.OpModify, "same", 2), tools.FileChange(tools.OpCreate, "tmp", 1), tools.FileChange(tools.OpDelete, "tmp", 0), tools.ProcessRun("true", 0)}
			},
			want: "",
		},
		{
			name:  "untouched change is not seen",
			files: map[string]string{"a": "1\n"},
			turn: func(w workspace.FS) []tools.Effect {
				w.WriteFile("a", []byte("2\n"))
				return nil
			},
			want: "",
		},
		{
			name:  "changes 6 lines apart share a hunk",
			files: map[string]string{"f": numbered(1, 20)},
			turn: func(w workspace.FS) []tools.Effect {
				s := strings.Replace(numbered(1, 20), "\n5\n", "\nV\n", 1)
				s = strings.Replace(s, "\n12\n", "\nXII\n", 1)
				w.WriteFile("f", []byte(s))
				return []tools.Effect{tools.FileChange(tools.OpModify, "f", 0)}
			},
			want: `diff --git a/f b/f
--- a/f
+++ b/f
@@ -2,14 +2,14 @@
 2
 3
 4
-5
+V
 6
 7
 8
 9
 10
 11
-12
+XII
 13
 14
 15
`,
			ops: "modify f",
		},
		{
			name:  "changes 7 lines apart get two hunks",
			files: map[string]string{"f": numbered(1, 20)},
			turn: func(w workspace.FS) []tools.Effect {
				s := strings.Replace(numbered(1, 20), "\n1\n", "\nI\n", 1)
				s = strings.Replace("\n"+s, "\n1\n", "\nI\n", 1)[1:]
				s = strings.Replace(s, "\n9\n", "\nIX\n", 1)
				s += "21\n"
				w.WriteFile("f", []byte(s))
				return []tools.Effect{tools.FileChange(tools.OpModify, "f", 0)}
			},
			want: `diff --git a/f b/f
--- a/f
+++ b/f
@@ -1,4 +1,4 @@
-1
+I
 2
 3
 4
@@ -6,7 +6,7 @@
 6
 7
 8
-9
+IX
 10
 11
 12
@@ -18,3 +18,4 @@
 18
 19
 20
+21
`,
			ops: "modify f",
		},
		{
			name:  "rename of a directory",
			files: map[string]string{"d/x": "x\n", "d/sub/y": "y\n", "keep": "k\n"},
			turn: func(w workspace.FS) []tools.Effect {
				w.Rename("d", "e")
				w.AppendFile("e/x", []byte("x2\n"))
				return []tools.Effect{tools.FileRename("d", "e", 0), tools.FileChange(tools.OpAppend, "e/x", 0)}
			},
			want: `diff --git a/d/sub/y b/e/sub/y
rename from d/sub/y
rename to e/sub/y
diff --git a/d/x b/e/x
rename from d/x
rename to e/x
--- a/d/x
+++ b/e/x
@@ -1 +1,2 @@
 x
+x2
`,
			ops: "rename e/sub/y d/sub/y rename e/x d/x",
		},
		{
			name:  "chain of renames",
			files: map[string]string{"a": "A\n"},
			turn: func(w workspace.FS) []tools.Effect {
				w.Rename("a", "b")
				w.Rename("b", "c")
				return []tools.Effect{tools.FileRename("a", "b", 2), tools.FileRename("b", "c", 2)}
			},
			want: `diff --git a/a b/c
rename from a
rename to c
`,
			ops: "rename c a",
		},
		{
			name:  "rename onto an existing file",
			files: map[string]string{"a": "A\n", "b": "B\n"},
			turn: func(w workspace.FS) []tools.Effect {
				w.Rename("a", "b")
				return []tools.Effect{tools.FileRename("a", "b", 2)}
			},
			want: `diff --git a/a b/a
deleted file mode 100644
--- a/a
+++ /dev/null
@@ -1 +0,0 @@
-A
diff --git a/b b/b
--- a/b
+++ b/b
@@ -1 +1 @@
-B
+A
`,
			ops: "delete a modify b",
		},
		{
			name:  "directory replaced by a file",
			files: map[string]string{"d/x": "x\n", "d/y": "y\n"},
			turn: func(w workspace.FS) []tools.Effect {
				w.Remove("d/x")
				w.Remove("d/y")
				w.Remove("d")
				w.WriteFile("d", []byte("file\n"))
				return []tools.Effect{tools.FileChange(tools.OpDelete, "d", 0), tools.FileChange(tools.OpCreate, "d", 5)}
			},
			want: `diff --git a/d b/d
new file mode 100644
--- /dev/null
+++ b/d
@@ -0,0 +1 @@
+file
diff --git a/d/x b/d/x
deleted file mode 100644
--- a/d/x
+++ /dev/null
@@ -1 +0,0 @@
-x
diff --git a/d/y b/d/y
deleted file mode 100644
--- a/d/y
+++ /dev/null
@@ -1 +0,0 @@
-y
`,
			ops: "create d delete d/x delete d/y",
		},
		{
			name:  "file replaced by a directory",
			files: map[string]string{"d": "file\n"},
			turn: func(w workspace.FS) []tools.Effect {
				w.Remove("d")
				w.WriteFile("d/x", []byte("x\n"))
				return []tools.Effect{tools.FileChange(tools.OpDelete, "d", 0), tools.FileChange(tools.OpCreate, "d/x", 2)}
			},
			want: `diff --git a/d b/d
deleted file mode 100644
--- a/d
+++ /dev/null
@@ -1 +0,0 @@
-file
diff --git a/d/x b/d/x
new file mode 100644
--- /dev/null
+++ b/d/x
@@ -0,0 +1 @@
+x
`,
			ops: "delete d create d/x",
		},
		{
			name:  "paths that need quoting",
			files: map[string]string{"my file": "a\n", `q"uote`: "b\n"},
			turn: func(w workspace.FS) []tools.Effect {
				w.WriteFile("my file", []byte("a2\n"))
				w.Rename(`q"uote`, "café")
				return []tools.Effect{tools.FileChange(tools.OpModify, "my file", 0), tools.FileRename(`q"uote`, "café", 0)}
			},
			want: `diff --git "a/q\"uote" "b/caf\303\251"
rename from "q\"uote"
rename to "caf\303\251"
diff --git a/my file b/my file
--- a/my file` + "\t" + `
+++ b/my file` + "\t" + `
@@ -1 +1 @@
-a
+a2
`,
			ops: "rename café q\"uote modify my file",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, rec := newRecorder(t, tt.files)
			rec.Record(tt.turn(w))
			d, err := rec.EndTurn()
			if err != nil {
				t.Fatal(err)
			}
			if got := d.String(); got != tt.want {
				t.Errorf("diff:\n%s\nwant:\n%s", got, tt.want)
			}
			var ops []string
			for _, f := range d.Files {
				ops = append(ops, strings.TrimSpace(f.Op+" "+f.Path+" "+f.From))
			}
			if got := strings.Join(ops, " "); got != tt.ops {
				t.Errorf("ops = %q, want %q", got, tt.ops)
			}
			// The turn's end is the next turn's start.
			rec.Record(tt.turn(workspace.NewMemory()))
			if d, err := rec.EndTurn(); err != nil || len(d.Files) != 0 {
				t.Errorf("second EndTurn = %q, %v; want no change", d, err)
			}
		})
	}
}

// TestTouchedFileWithStaleFilesBeneath: an unreported change can leave the
// baseline holding both a file and files beneath its path; a touched path
// still stands for every baseline file beneath it.
func TestTouchedFileWithStaleFilesBeneath(t *testing.T) {
	w, rec := newRecorder(t, map[string]string{"d": "file\n"})
	w.Remove("d") // not reported
	w.WriteFile("d/x", []byte("x\n"))
	rec.Record([]tools.Effect{tools.FileChange(tools.OpCreate, "d/x", 2)})
	if d, err := rec.EndTurn(); err != nil || len(d.Files) != 1 || d.Files[0].Op != diffrecorder.OpCreate {
		t.Fatalf("first EndTurn = %q, %v; want the creation of d/x", d, err)
	}
	w.Remove("d/x")
	w.Remove("d")
	rec.Record([]tools.Effect{tools.FileChange(tools.OpDelete, "d", 0)})
	d, err := rec.EndTurn()
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, f := range d.Files {
		ops = append(ops, f.Op+" "+f.Path)
	}
	if got, want := strings.Join(ops, ", "), "delete d, delete d/x"; got != want {
		t.Errorf("second EndTurn: %s; want %s", got, want)
	}
}

func TestEndTurnAdvancesBaseline(t *testing.T) {
	w, rec := newRecorder(t, map[string]string{"f": "1\n"})
	w.WriteFile("f", []byte("2\n"))
	rec.Record([]tools.Effect{tools.FileChange(tools.OpModify, "f", 2)})
	if _, err := rec.EndTurn(); err != nil {
		t.Fatal(err)
	}
	w.WriteFile("f", []byte("3\n"))
	rec.Record([]tools.Effect{tools.FileChange(tools.OpModify, "f", 2)})
	d, err := rec.EndTurn()
	if err != nil {
		t.Fatal(err)
	}
	want := "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-2\n+3\n"
	if d.String() != want {
		t.Errorf("second turn:\n%s\nwant:\n%s", d, want)
	}
}

func TestInvalidEffectPath(t *testing.T) {
	w, rec := newRecorder(t, nil)
	w.WriteFile("ok", []byte("x\n"))
	rec.Record([]tools.Effect{tools.FileChange(tools.OpCreate, "../evil", 1), tools.FileChange(tools.OpCreate, "ok", 2)})
	_, err := rec.EndTurn()
	if !errors.Is(err, workspace.ErrEscape) || !strings.Contains(err.Error(), "../evil") {
		t.Fatalf("EndTurn = %v, want an error naming ../evil and wrapping ErrEscape", err)
	}
	d, err := rec.EndTurn()
	if err != nil || len(d.Files) != 1 || d.Files[0].Path != "ok" {
		t.Errorf("EndTurn after the error = %q, %v; want the creation of ok", d, err)
	}
}

func TestConcurrentRecord(t *testing.T) {
	w, rec := newRecorder(t, nil)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				p := fmt.Sprintf("g%d/f%02d", g, i)
				w.WriteFile(p, []byte(p+"\n"))
				rec.Record([]tools.Effect{tools.FileChange(tools.OpCreate, p, 0)})
			}
		})
	}
	var turns []diffrecorder.TurnDiff
	wg.Go(func() {
		for range 10 {
			d, err := rec.EndTurn()
			if err != nil {
				t.Error(err)
			}
			turns = append(turns, d)
		}
	})
	wg.Wait()
	d, err := rec.EndTurn()
	if err != nil {
		t.Fatal(err)
	}
	turns = append(turns, d)
	// Every creation is rendered exactly once, in whichever turn saw it.
	created := map[string]int{}
	for _, d := range turns {
		for _, f := range d.Files {
			if f.Op != diffrecorder.OpCreate {
				t.Errorf("unexpected %s of %s", f.Op, f.Path)
			}
			created[f.Path]++
		}
	}
	for g := range 8 {
		for i := range 20 {
			if p := fmt.Sprintf("g%d/f%02d", g, i); created[p] != 1 {
				t.Errorf("%s created %d times, want 1", p, created[p])
			}
		}
	}
}

func TestNewReportsWorkspaceErrors(t *testing.T) {
	if _, err := diffrecorder.New(failingFS{workspace.NewMemory()}); err == nil {
		t.Error("New on a workspace that cannot be walked succeeded")
	}
}

type failingFS struct{ workspace.FS }

func (failingFS) Walk(func(string, fs.DirEntry) error) error { return errors.New("broken") }

// TestEarlierTurnsPathsAreNotCompared: EndTurn compares only the paths touched
// since the previous EndTurn. A file touched in turn 1 and changed in turn 2
// without an effect is not in turn 2's diff; when a later turn touches it, its
// diff is against its content at the end of turn 1.
func TestEarlierTurnsPathsAreNotCompared(t *testing.T) {
	w, rec := newRecorder(t, map[string]string{"a": "a1\n", "b": "b1\n"})
	turn := func(n int, effects ...tools.Effect) string {
		t.Helper()
		rec.Record(effects)
		d, err := rec.EndTurn()
		if err != nil {
			t.Fatalf("turn %d: %v", n, err)
		}
		return d.String()
	}
	w.WriteFile("a", []byte("a2\n"))
	w.WriteFile("b", []byte("b2\n"))
	turn(1, tools.FileChange(tools.OpModify, "a", 3), tools.FileChange(tools.OpModify, "b", 3))

	w.WriteFile("a", []byte("a3\n"))
	w.WriteFile("b", []byte("b3\n")) // no effect reports it
	if got, want := turn(2, tools.FileChange(tools.OpModify, "a", 3)), "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a2\n+a3\n"; got != want {
		t.Errorf("turn 2:\n%s\nwant only a, against turn 1's end:\n%s", got, want)
	}
	if got := turn(3); got != "" {
		t.Errorf("turn 3 touched nothing but diffed:\n%s", got)
	}
	if got, want := turn(4, tools.FileChange(tools.OpModify, "b", 3)), "diff --git a/b b/b\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-b2\n+b3\n"; got != want {
		t.Errorf("turn 4:\n%s\nwant b against its content at the end of turn 1:\n%s", got, want)
	}
}

// TestNewFromSnapshot: a Recorder made from a snapshot the caller took
// diffs as one that took it itself, and leaves the caller's map as it was.
func TestNewFromSnapshot(t *testing.T) {
	w := workspace.NewMemory()
	for p, data := range map[string]string{"a": "a1\n", "d/b": "b1\n"} {
		if err := w.WriteFile(p, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := workspace.Entries(w)
	if err != nil {
		t.Fatal(err)
	}
	from := diffrecorder.NewFrom(w, snap)
	own, err := diffrecorder.New(w)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteFile("a", []byte("a2\n"))
	w.Remove("d/b")
	w.WriteFile("c", []byte("c1\n"))
	effects := []tools.Effect{tools.FileChange(tools.OpModify, "a", 3), tools.FileChange(tools.OpDelete, "d/b", 0), tools.FileChange(tools.OpCreate, "c", 3)}
	for turn := 1; turn <= 2; turn++ {
		from.Record(effects)
		own.Record(effects)
		got, err := from.EndTurn()
		want, werr := own.EndTurn()
		if err != nil || werr != nil || got.String() != want.String() {
			t.Errorf("turn %d: NewFrom's diff %q (%v), New's %q (%v)", turn, got, err, want, werr)
		}
	}
	if len(snap) != 2 || string(snap["a"].Data) != "a1\n" || string(snap["d/b"].Data) != "b1\n" {
		t.Errorf("the snapshot changed: %q", snap)
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
