package diffrecorder

import (
	"fmt"
	"strings"

	"github.com/tapeloop/tapeloop/internal/udiff"
)

// The operations of a [FileDiff].
const (
	OpCreate = "create"
	OpModify = "modify"
	OpDelete = "delete"
	OpRename = "rename"
)

// TurnDiff is what one turn changed in the workspace. The zero TurnDiff is a
// turn that changed nothing.
type TurnDiff struct {
	// Files holds one entry per changed file, sorted by Path.
	Files []FileDiff
}

// String returns the diffs of all files concatenated: a patch of the turn,
// or "" when nothing changed.
func (d TurnDiff) String() string {
	var sb strings.Builder
	for _, f := range d.Files {
		sb.WriteString(f.Diff)
	}
	return sb.String()
}

// FileDiff is the change of one file in a turn.
type FileDiff struct {
	// Path is the file's workspace-relative path after the turn (its new
	// path for a rename).
	Path string
	// From is the path before a rename; it is "" for every other Op.
	From string
	// Op is OpCreate, OpModify, OpDelete or OpRename.
	Op string
	// Diff is the file's section of the patch, in the format of the package
	// documentation, ending with a newline.
	Diff string
}

// maxDistinctLines is the most distinct lines (old and new together) of a
// file that fileDiff diffs line by line; above it, the file is replaced whole.
const maxDistinctLines = udiff.MaxDistinctLines

// emptyBlob is the abbreviated git object name of the empty file. GNU patch
// needs it on an "index" line to delete an empty file: without it, a section
// with no hunks that deletes a file looks like a reversed creation.
const emptyBlob = "e69de29"

// fileDiff renders the change from old to new. oldPath or newPath name the
// two sides (equal except for renames); a nil side does not exist.
func fileDiff(oldPath, newPath string, old, new []byte, limit int) FileDiff {
	fd := FileDiff{Path: newPath, Op: OpModify}
	binary := udiff.IsBinary(old) || udiff.IsBinary(new)
	var hunks string
	if !binary && string(old) != string(new) {
		hunks = udiff.HunksLimit(string(old), string(new), limit)
	}
	var sb strings.Builder
	sb.Grow(128 + 4*(len(oldPath)+len(newPath)) + len(hunks))
	aName, bName := quote("a/"+oldPath), quote("b/"+newPath)
	sb.WriteString("diff --git " + aName + " " + bName + "\n")
	switch {
	case old == nil:
		fd.Op = OpCreate
		sb.WriteString("new file mode 100644\n")
		aName = "/dev/null"
	case new == nil:
		fd.Op = OpDelete
		fd.Path = oldPath
		sb.WriteString("deleted file mode 100644\n")
		bName = "/dev/null"
	case oldPath != newPath:
		fd.Op = OpRename
		fd.From = oldPath
		fmt.Fprintf(&sb, "rename from %s\nrename to %s\n", quote(oldPath), quote(newPath))
	}
	switch {
	case binary:
		if string(old) != string(new) || old == nil || new == nil {
			fmt.Fprintf(&sb, "Binary files %s and %s differ\n", aName, bName)
		}
	case old == nil && len(new) == 0:
		sb.WriteString("index 0000000.." + emptyBlob + "\n")
	case new == nil && len(old) == 0:
		sb.WriteString("index " + emptyBlob + "..0000000\n")
	case string(old) == string(new):
		// A pure rename: headers only.
	default:
		sb.WriteString("--- " + fileLineName(aName) + "\n+++ " + fileLineName(bName) + "\n")
		sb.WriteString(hunks)
	}
	fd.Diff = sb.String()
	return fd
}

// fileLineName returns the quoted name q as it goes on a "---" or "+++" line:
// like git, an unquoted name holding a space ends with a tab, so that patch
// programs do not mistake the rest of the name for a timestamp.
func fileLineName(q string) string {
	if !strings.HasPrefix(q, `"`) && strings.Contains(q, " ") {
		return q + "\t"
	}
	return q
}

// quote returns name as git writes it in patch headers: unchanged, or, when
// it holds a double quote, a backslash, a control character or a non-ASCII
// byte, double-quoted with C escapes (octal for bytes without a letter).
func quote(name string) string {
	needs := false
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < ' ' || c == '"' || c == '\\' || c >= 0x7f {
			needs = true
			break
		}
	}
	if !needs {
		return name
	}
	var sb strings.Builder
	sb.WriteByte('"')
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '"', '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case '\a':
			sb.WriteString(`\a`)
		case '\b':
			sb.WriteString(`\b`)
		case '\t':
			sb.WriteString(`\t`)
		case '\n':
			sb.WriteString(`\n`)
		case '\v':
			sb.WriteString(`\v`)
		case '\f':
			sb.WriteString(`\f`)
		case '\r':
			sb.WriteString(`\r`)
		default:
			if c < ' ' || c >= 0x7f {
				fmt.Fprintf(&sb, `\%03o`, c)
			} else {
				sb.WriteByte(c)
			}
		}
	}
	sb.WriteByte('"')
	return sb.String()
}
