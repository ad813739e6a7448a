// Package workspace is the file system a tool may touch: a root directory, on
// disk or in memory, with every path confined to it.
//
// Every name is relative to the root and slash-separated. A name that is
// absolute ("/etc/passwd", `C:\x`), that climbs out of the root ("../x",
// "a/../../x"), that contains a NUL byte or a backslash, or that reaches
// outside the root through a symbolic link is refused with an error wrapping
// [ErrEscape]. Errors are [*fs.PathError] values whose Path is the name as the
// caller gave it, never the directory on disk, so they are stable across
// machines and can go into golden files.
//
// [Disk] confines a directory with [os.Root], so symbolic links are resolved
// by the operating system and cannot lead out of the root. [Memory] is a
// deterministic in-memory tree that behaves like Disk for every operation.
// Both are safe for concurrent use.
//
// Tools see regular files and directories only. A record of the workspace
// sees every entry: [Entries] and [ReadEntry] describe each as an [Entry],
// a symbolic link by its target (never followed), a named pipe, socket or
// device by its kind (never opened), a file of several names as one file
// and links to it.
//
//	w := workspace.NewMemory()
//	if err := workspace.CopyFS(w, os.DirFS("testdata/seed")); err != nil {
//		return err
//	}
//	if err := w.WriteFile("notes/todo.txt", []byte("ship it\n")); err != nil {
//		return err
//	}
//	_, err := w.ReadFile("../secret") // errors.Is(err, workspace.ErrEscape)
package workspace

import "io/fs"

// FS is a workspace: a tree of files and directories under one root. Names are
// cleaned with [Clean] before use; "" and "." name the root.
//
// Every error is an [*fs.PathError] naming the path as the caller gave it (a
// failed rename may instead be an [*os.LinkError] naming both paths). Errors
// wrap [ErrEscape] for refused names, [fs.ErrNotExist] for absent files and
// [fs.ErrExist] where something is in the way.
type FS interface {
	// ReadFile returns the content of the named regular file. The content
	// of an existing file is never nil: an empty file gives an empty,
	// non-nil slice, so nil can stand for "absent".
	ReadFile(name string) ([]byte, error)
	// WriteFile creates or truncates the named file and writes data to it,
	// creating missing parent directories first.
	WriteFile(name string, data []byte) error
	// AppendFile appends data to the named file, creating it (and missing
	// parent directories) if it is absent.
	AppendFile(name string, data []byte) error
	// Remove removes the named file or empty directory. Removing an absent
	// name is an error wrapping fs.ErrNotExist.
	Remove(name string) error
	// Rename moves from to to, creating missing parent directories of to. An
	// existing file at to is replaced.
	Rename(from, to string) error
	// Stat describes the named file, following symbolic links that stay
	// inside the root.
	Stat(name string) (fs.FileInfo, error)
	// ReadDir lists the named directory sorted by name; "" or "." is the root.
	ReadDir(name string) ([]fs.DirEntry, error)
	// Walk calls fn for every file and directory under the root (the root
	// itself excluded) in lexical order, like fs.WalkDir, with slash-separated
	// relative paths. Symbolic links are reported, not followed. If fn returns
	// fs.SkipDir for a directory its contents are skipped; fs.SkipAll stops
	// the walk without error; any other error stops the walk and is returned.
	Walk(fn func(path string, d fs.DirEntry) error) error
}
