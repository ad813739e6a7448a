package workspace

import (
	"errors"
	"io/fs"
	"path"
	"strings"
)

// ErrEscape is wrapped by every error for a name the workspace refuses: an
// absolute path, a path that leaves the root through "..", a name holding a
// NUL byte or a backslash, or a symbolic link that leads outside the root.
var ErrEscape = errors.New("path escapes workspace root")

// ErrNotRegular is wrapped by the error for a file operation on a file that
// is not a regular file: a named pipe, a device or a socket. Only [Disk] has
// such files; it never opens them.
var ErrNotRegular = errors.New("not a regular file")

// ErrLinked is wrapped by the error for reading or writing a file that has
// more than one hard link, which [Disk] refuses because the other link may lie
// outside the root.
var ErrLinked = errors.New("file has more than one hard link")

// Clean validates name as a slash-separated path relative to a workspace root
// and returns it in its shortest form: "a/../b" becomes "b", "./x" becomes
// "x", and "" becomes "." (the root).
//
// It refuses, with an [*fs.PathError] whose Op is "clean" and which wraps
// [ErrEscape]: absolute paths ("/etc/passwd"), Windows volume or backslash
// paths (`C:\x`, "C:x", `a\b`; any name whose second byte is a colon after
// a letter counts as a volume, so "a:b" is refused while "ab:c" is not),
// names with a NUL byte, and names that climb
// above the root ("../x", "a/../../x"). Clean does not look at the file
// system, so it cannot see symbolic links; the workspace implementations do.
func Clean(name string) (string, error) {
	if !validName(name) {
		return "", &fs.PathError{Op: "clean", Path: name, Err: ErrEscape}
	}
	if name == "" {
		return ".", nil
	}
	c := path.Clean(name)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", &fs.PathError{Op: "clean", Path: name, Err: ErrEscape}
	}
	return c, nil
}

// validName reports whether name is free of the forms Clean refuses before
// any cleaning: absolute, volume-qualified, backslashed or NUL-carrying names.
func validName(name string) bool {
	if strings.HasPrefix(name, "/") || strings.ContainsAny(name, "\\\x00") {
		return false
	}
	// A drive letter ("C:" or "C:x") is absolute or drive-relative on Windows.
	if len(name) >= 2 && name[1] == ':' && isASCIILetter(name[0]) {
		return false
	}
	return true
}

func isASCIILetter(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// clean is Clean with the error's Op set to op.
func clean(op, name string) (string, error) {
	c, err := Clean(name)
	if err != nil {
		return "", &fs.PathError{Op: op, Path: name, Err: ErrEscape}
	}
	return c, nil
}

// parent returns the directory holding the cleaned name c ("." for the root's
// children).
func parent(c string) string {
	return path.Dir(c)
}
