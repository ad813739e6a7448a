// Package diffrecorder turns the file effects of tool results into per-turn
// unified diffs of a workspace. Like httptest.ResponseRecorder, a [Recorder]
// records its mutations for later inspection: it snapshots the workspace,
// notes which paths each turn's effects touched, and at the end of the turn
// renders what changed in those paths.
//
//	rec, err := diffrecorder.New(w)
//	...
//	rec.Record(result.Effects) // as tool results arrive, from any goroutine
//	...
//	turn, err := rec.EndTurn()
//	fmt.Print(turn) // a patch: `patch -p1` or `git apply` reproduces the turn
//
// # Format
//
// The output is git's extended unified diff, restricted to what a workspace
// can express, so that both `patch -p1` and `git apply` accept it. Each file
// starts with a "diff --git a/PATH b/PATH" line, followed by:
//
//   - create: "new file mode 100644", then "--- /dev/null" and "+++ b/PATH"
//     and one hunk; an empty new file has instead the line
//     "index 0000000..e69de29" (e69de29 is git's name for empty content).
//   - delete: "deleted file mode 100644", then "--- a/PATH" and
//     "+++ /dev/null" and one hunk; an empty deleted file has instead
//     "index e69de29..0000000", without which GNU patch cannot delete it.
//   - modify: "--- a/PATH" and "+++ b/PATH" and the hunks.
//   - rename: "diff --git a/FROM b/PATH", "rename from FROM", "rename to
//     PATH", then, if the content changed too, "--- a/FROM", "+++ b/PATH"
//     and the hunks.
//   - binary content (not valid UTF-8, or holding a NUL byte, on either
//     side): "Binary files a/PATH and b/PATH differ" in place of ---/+++ and
//     hunks (with /dev/null for an absent side). Patch tools cannot apply it.
//
// The workspace has no file modes, so created and deleted files always say
// 100644. Hunks have 3 lines of context; their headers are "@@ -l,s +l,s @@"
// where a count of 1 is left out and an empty range names the line before it
// (0 at the top). Hunks whose contexts overlap or touch are merged. A line
// without a final newline is followed by "\ No newline at end of file".
// Paths are written as git writes them: a path holding a double quote, a
// backslash, a control character or a non-ASCII byte is double-quoted with C
// escapes (`"a/caf\303\251"`), and a path holding a space ends its "---" and
// "+++" lines with a tab.
//
// An example, for notes.txt whose second line changed and a new empty file:
//
//	diff --git a/empty b/empty
//	new file mode 100644
//	index 0000000..e69de29
//	diff --git a/notes.txt b/notes.txt
//	--- a/notes.txt
//	+++ b/notes.txt
//	@@ -1,3 +1,3 @@
//	 one
//	-two
//	+TWO
//	 three
//
// Line diffs come from github.com/sergi/go-diff in line mode with no time
// limit, so the same change always renders the same way on every machine.
// Above 1,000,000 distinct lines in one file (go-diff's line encoding runs out
// at about 1.1 million) the diff replaces the whole file instead.
package diffrecorder
