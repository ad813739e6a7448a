package diffrecorder

import (
	"fmt"
	"strings"

	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/workspace"
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
// two sides (equal except for renames); a nil side does not exist. A side
// that git's format cannot hold in the same section as the other (a change
// between a file and a link, or to or from a special file or a hard link)
// renders as the old side's deletion followed by the new side's creation.
func fileDiff(oldPath, newPath string, old, new *workspace.Entry, limit int) FileDiff {
	fd := FileDiff{Path: newPath, Op: OpModify}
	switch {
	case old == nil:
		fd.Op = OpCreate
	case new == nil:
		fd.Op = OpDelete
		fd.Path = oldPath
	case oldPath != newPath:
		fd.Op = OpRename
		fd.From = oldPath
	}
	if old != nil && new != nil && gitMode(old) != "" && (gitMode(old) == "120000") == (gitMode(new) == "120000") {
		fd.Diff = section(oldPath, newPath, old, new, limit)
		return fd
	}
	var sb strings.Builder
	if old != nil {
		sb.WriteString(section(oldPath, oldPath, old, nil, limit))
	}
	if new != nil {
		sb.WriteString(section(newPath, newPath, nil, new, limit))
	}
	fd.Diff = sb.String()
	return fd
}

// gitMode returns the mode git gives the entry e: 100644 or 100755 for a
// regular file, 120000 for a symbolic link; "" for the kinds git has no
// mode for.
func gitMode(e *workspace.Entry) string {
	switch e.Kind {
	case workspace.KindFile:
		if e.Exec {
			return "100755"
		}
		return "100644"
	case workspace.KindSymlink:
		return "120000"
	}
	return ""
}

// content is what git diffs of the entry e: a file's content, a link's
// target.
func content(e *workspace.Entry) []byte {
	if e == nil {
		return nil
	}
	if e.Kind == workspace.KindSymlink {
		return []byte(e.Target)
	}
	return e.Data
}

// section renders one "diff --git" section from old to new, which are
// both of a kind git has a mode for (files or both links) when both are
// given.
func section(oldPath, newPath string, old, new *workspace.Entry, limit int) string {
	aName, bName := quote("a/"+oldPath), quote("b/"+newPath)
	head := "diff --git " + aName + " " + bName + "\n"
	switch {
	case old == nil && gitMode(new) == "":
		return head + "new " + describe(new) + "\n"
	case new == nil && gitMode(old) == "":
		return head + "deleted " + describe(old) + "\n"
	}
	oldData, newData := content(old), content(new)
	if old != nil && oldData == nil {
		oldData = []byte{}
	}
	if new != nil && newData == nil {
		newData = []byte{}
	}
	binary := udiff.IsBinary(oldData) || udiff.IsBinary(newData)
	var hunks string
	if !binary && string(oldData) != string(newData) {
		hunks = udiff.HunksLimit(string(oldData), string(newData), limit)
	}
	var sb strings.Builder
	sb.Grow(128 + 4*(len(oldPath)+len(newPath)) + len(hunks))
	sb.WriteString(head)
	switch {
	case old == nil:
		sb.WriteString("new file mode " + gitMode(new) + "\n")
		aName = "/dev/null"
	case new == nil:
		sb.WriteString("deleted file mode " + gitMode(old) + "\n")
		bName = "/dev/null"
	default:
		if om, nm := gitMode(old), gitMode(new); om != nm {
			sb.WriteString("old mode " + om + "\nnew mode " + nm + "\n")
		}
		if oldPath != newPath {
			fmt.Fprintf(&sb, "rename from %s\nrename to %s\n", quote(oldPath), quote(newPath))
		}
	}
	switch {
	case binary:
		if string(oldData) != string(newData) || old == nil || new == nil {
			fmt.Fprintf(&sb, "Binary files %s and %s differ\n", aName, bName)
		}
	case old == nil && len(newData) == 0:
		sb.WriteString("index 0000000.." + emptyBlob + "\n")
	case new == nil && len(oldData) == 0:
		sb.WriteString("index " + emptyBlob + "..0000000\n")
	case string(oldData) == string(newData):
		// A pure rename or mode change: headers only.
	default:
		sb.WriteString("--- " + fileLineName(aName) + "\n+++ " + fileLineName(bName) + "\n")
		sb.WriteString(hunks)
	}
	return sb.String()
}

// describe names an entry git has no mode for, after "new " or "deleted "
// in its section: "named pipe", "hard link to a.txt", "hard link to a
// file outside the workspace".
func describe(e *workspace.Entry) string {
	if e.Kind == workspace.KindHardLink {
		return "hard link to " + quote(e.Target)
	}
	return e.Kind.String()
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
