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
//   - mode change: "old mode 100644" and "new mode 100755" after the "diff
//     --git" line, then the hunks if the content changed too.
//
// Modes are git's: 100644 for a regular file, 100755 for one its owner may
// execute, 120000 for a symbolic link, whose content is its target as
// written (one line without a final newline), read without following it.
// A memory workspace has no modes: its files are 100644. Every other entry
// (see [workspace.ReadEntry]) has a section of its own that patch tools
// cannot apply: "new KIND" or "deleted KIND" after the "diff --git" line,
// where KIND is "named pipe", "socket", "character device", "block
// device", "hard link to NAME" (a second name of the file NAME, which shows
// its content) or "hard link to a file outside the workspace" (never
// read). An entry that changes between kinds that one section cannot hold
// (a file and a link, a pipe and a file) is its deletion followed by its
// creation, two sections for the one path. Hunks have 3 lines of context; their headers are "@@ -l,s +l,s @@"
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
