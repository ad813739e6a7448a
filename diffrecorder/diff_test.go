package diffrecorder_test

import (
	"testing"

	"github.com/tapeloop/tapeloop/tools"
)

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
