package workspace

import (
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Memory is a workspace held in memory. It behaves like [Disk] on Linux for
// every operation, down to the text of its errors (syscall.ENOENT, which
// wraps fs.ErrNotExist, when a name is absent; syscall.ENOTDIR when reading
// below a file; syscall.EEXIST when a file is in the way of a directory to
// create or a rename would replace a directory; syscall.EISDIR when a file
// operation names a directory; syscall.ENOTEMPTY when removing a non-empty
// directory), but it has no symbolic links, no permissions and no times: every file has mode 0644, every directory 0755, and every ModTime is
// the zero time, so it is fully deterministic.
//
// A Memory is safe for concurrent use. The zero Memory is not usable; create
// one with [NewMemory].
type Memory struct {
	mu    sync.RWMutex
	nodes map[string]*node // by cleaned path; "." is the root directory
}

// node is a file (data) or a directory (children, by base name).
type node struct {
	dir      bool
	data     []byte
	children map[string]struct{}
}

var _ FS = (*Memory)(nil)

// NewMemory returns an empty in-memory workspace.
func NewMemory() *Memory {
	return &Memory{nodes: map[string]*node{".": {dir: true, children: map[string]struct{}{}}}}
}

// lookup returns the node at the cleaned name c, or an error (fs.ErrNotExist,
// or syscall.ENOTDIR when a parent is a file) that the caller wraps.
func (m *Memory) lookup(c string) (*node, error) {
	if n, ok := m.nodes[c]; ok {
		return n, nil
	}
	// Like the OS: a missing name below a file is ENOTDIR, not ENOENT.
	for p := parent(c); ; p = parent(p) {
		if n, ok := m.nodes[p]; ok {
			if !n.dir {
				return nil, syscall.ENOTDIR
			}
			return nil, syscall.ENOENT
		}
		if p == "." {
			return nil, syscall.ENOENT
		}
	}
}

// mkdirAll creates the cleaned directory c and its missing parents.
func (m *Memory) mkdirAll(c string) error {
	if n, ok := m.nodes[c]; ok {
		if !n.dir {
			return syscall.EEXIST // as os.Root.MkdirAll reports a file in the way
		}
		return nil
	}
	if err := m.mkdirAll(parent(c)); err != nil {
		return err
	}
	m.link(c, &node{dir: true, children: map[string]struct{}{}})
	return nil
}

// link puts n at the cleaned name c, whose parent directory exists.
func (m *Memory) link(c string, n *node) {
	m.nodes[c] = n
	m.nodes[parent(c)].children[path.Base(c)] = struct{}{}
}

// unlink removes the node at the cleaned name c (not its descendants).
func (m *Memory) unlink(c string) {
	delete(m.nodes, c)
	delete(m.nodes[parent(c)].children, path.Base(c))
}

// ReadFile implements [FS].
func (m *Memory) ReadFile(name string) ([]byte, error) {
	c, err := clean("read", name)
	if err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	n, err := m.lookup(c)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if n.dir {
		return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
	}
	return append([]byte{}, n.data...), nil // never nil, like Disk's
}

// WriteFile implements [FS].
func (m *Memory) WriteFile(name string, data []byte) error {
	return m.write("write", name, data, false)
}

// AppendFile implements [FS].
func (m *Memory) AppendFile(name string, data []byte) error {
	return m.write("append", name, data, true)
}

func (m *Memory) write(op, name string, data []byte, appending bool) error {
	c, err := clean(op, name)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if c == "." {
		return &fs.PathError{Op: op, Path: name, Err: syscall.EISDIR}
	}
	if err := m.mkdirAll(parent(c)); err != nil {
		return &fs.PathError{Op: op, Path: name, Err: err}
	}
	n, ok := m.nodes[c]
	switch {
	case !ok:
		m.link(c, &node{data: slices.Clone(data)})
	case n.dir:
		return &fs.PathError{Op: op, Path: name, Err: syscall.EISDIR}
	case appending:
		n.data = append(slices.Clip(n.data), data...)
	default:
		n.data = slices.Clone(data)
	}
	return nil
}

// Remove implements [FS].
func (m *Memory) Remove(name string) error {
	c, err := clean("remove", name)
	if err != nil {
		return err
	}
	if c == "." {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrInvalid}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookup(c)
	if err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	if n.dir && len(n.children) > 0 {
		return &fs.PathError{Op: "remove", Path: name, Err: syscall.ENOTEMPTY}
	}
	m.unlink(c)
	return nil
}

// Rename implements [FS]. Renaming a directory moves its whole subtree. Like
// os.Rename, it never replaces a directory (syscall.EEXIST), a directory
// cannot replace a file (syscall.ENOTDIR) nor move beneath itself
// (syscall.EINVAL).
func (m *Memory) Rename(from, to string) error {
	cf, err := clean("rename", from)
	if err != nil {
		return err
	}
	ct, err := clean("rename", to)
	if err != nil {
		return err
	}
	linkErr := func(err error) error { return &os.LinkError{Op: "rename", Old: from, New: to, Err: err} }
	if cf == "." || ct == "." {
		return linkErr(fs.ErrInvalid)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	src, err := m.lookup(cf)
	if err != nil {
		return &fs.PathError{Op: "rename", Path: from, Err: err}
	}
	if err := m.mkdirAll(parent(ct)); err != nil {
		return &fs.PathError{Op: "rename", Path: to, Err: err}
	}
	if cf == ct {
		return nil
	}
	if src.dir && strings.HasPrefix(ct, cf+"/") {
		return linkErr(syscall.EINVAL)
	}
	if dst, ok := m.nodes[ct]; ok {
		switch {
		case dst.dir:
			return linkErr(syscall.EEXIST) // as os.Rename refuses to replace a directory
		case src.dir:
			return linkErr(syscall.ENOTDIR)
		}
		m.unlink(ct)
	}
	m.move(cf, ct)
	return nil
}

// move relinks the node at cf, and its descendants, under ct.
func (m *Memory) move(cf, ct string) {
	n := m.nodes[cf]
	m.unlink(cf)
	m.link(ct, n)
	if !n.dir {
		return
	}
	for child := range n.children {
		m.moveSubtree(cf+"/"+child, ct+"/"+child)
	}
}

// moveSubtree re-keys the node at cf and its descendants under ct; the parent
// directory's children are already right.
func (m *Memory) moveSubtree(cf, ct string) {
	n := m.nodes[cf]
	delete(m.nodes, cf)
	m.nodes[ct] = n
	for child := range n.children {
		m.moveSubtree(cf+"/"+child, ct+"/"+child)
	}
}

// Stat implements [FS].
func (m *Memory) Stat(name string) (fs.FileInfo, error) {
	c, err := clean("stat", name)
	if err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	n, err := m.lookup(c)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return n.info(path.Base(c)), nil
}

// ReadDir implements [FS].
func (m *Memory) ReadDir(name string) ([]fs.DirEntry, error) {
	c, err := clean("readdir", name)
	if err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	n, err := m.lookup(c)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	if !n.dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: syscall.ENOTDIR}
	}
	entries := make([]fs.DirEntry, 0, len(n.children))
	for child := range n.children {
		p := child
		if c != "." {
			p = c + "/" + child
		}
		entries = append(entries, fs.FileInfoToDirEntry(m.nodes[p].info(child)))
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// Walk implements [FS].
func (m *Memory) Walk(fn func(path string, d fs.DirEntry) error) error {
	return walk(m, fn)
}

// info describes n, named base, at the moment of the call.
func (n *node) info(base string) fs.FileInfo {
	if n.dir {
		return fileInfo{name: base, mode: fs.ModeDir | 0o755}
	}
	return fileInfo{name: base, size: int64(len(n.data)), mode: 0o644}
}

// fileInfo is a Memory node's fs.FileInfo; its ModTime is the zero time.
type fileInfo struct {
	name string
	size int64
	mode fs.FileMode
}

func (fi fileInfo) Name() string       { return fi.name }
func (fi fileInfo) Size() int64        { return fi.size }
func (fi fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi fileInfo) ModTime() time.Time { return time.Time{} }
func (fi fileInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi fileInfo) Sys() any           { return nil }
