package workspace

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// Disk is a workspace rooted at a directory on disk. It opens the directory
// as an [os.Root], so every operation is resolved by the operating system
// beneath the root and a symbolic link that leads outside it is refused with
// [ErrEscape]; symbolic links that stay inside are followed.
//
// A file with more than one hard link is neither read nor written (os.Root
// does not stop a hard link to a file outside the root), and a file that is
// not a regular file (a named pipe, a device, a socket) is never opened, so
// no operation blocks on it: both are refused with [ErrLinked] and
// [ErrNotRegular].
//
// Files are created with mode 0644 and directories with 0755 (before the
// umask). A Disk is safe for concurrent use; WriteFile is not atomic, so a
// concurrent reader may see a partly written file.
//
// The zero Disk is not usable; create one with [NewDisk] and release it with
// [Disk.Close].
type Disk struct {
	root *os.Root

	mu  sync.Mutex
	top *os.File // the root directory, open for ReadDir("."); nil until then
}

var _ FS = (*Disk)(nil)

// NewDisk opens the existing directory dir as a workspace root.
func NewDisk(dir string) (*Disk, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Disk{root: r}, nil
}

// Close releases the root directory. Operations after Close fail.
func (d *Disk) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.top != nil {
		d.top.Close()
		d.top = nil
	}
	return d.root.Close()
}

// ReadFile implements [FS].
func (d *Disk) ReadFile(name string) ([]byte, error) {
	c, err := clean("read", name)
	if err != nil {
		return nil, err
	}
	f, err := d.openRegular(c, os.O_RDONLY)
	if err != nil {
		return nil, diskError("read", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, diskError("read", name, err)
	}
	return data, nil
}

// WriteFile implements [FS].
func (d *Disk) WriteFile(name string, data []byte) error {
	c, err := clean("write", name)
	if err != nil {
		return err
	}
	if err := d.mkdirParents(c); err != nil {
		return diskError("write", name, err)
	}
	// Truncated only once openRegular has checked it is ours to write.
	f, err := d.openRegular(c, os.O_WRONLY|os.O_CREATE)
	if err != nil {
		return diskError("write", name, err)
	}
	err = f.Truncate(0)
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return diskError("write", name, err)
	}
	return nil
}

// AppendFile implements [FS].
func (d *Disk) AppendFile(name string, data []byte) error {
	c, err := clean("append", name)
	if err != nil {
		return err
	}
	if err := d.mkdirParents(c); err != nil {
		return diskError("append", name, err)
	}
	f, err := d.openRegular(c, os.O_WRONLY|os.O_CREATE|os.O_APPEND)
	if err != nil {
		return diskError("append", name, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return diskError("append", name, err)
	}
	return nil
}

// Remove implements [FS].
func (d *Disk) Remove(name string) error {
	c, err := clean("remove", name)
	if err != nil {
		return err
	}
	if c == "." {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrInvalid}
	}
	if err := d.root.Remove(c); err != nil {
		return diskError("remove", name, err)
	}
	return nil
}

// Rename implements [FS]. The source must exist before parent directories of
// the destination are created, so a failed rename leaves no new directories.
func (d *Disk) Rename(from, to string) error {
	cf, err := clean("rename", from)
	if err != nil {
		return err
	}
	ct, err := clean("rename", to)
	if err != nil {
		return err
	}
	if cf == "." || ct == "." {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: fs.ErrInvalid}
	}
	if _, err := d.root.Lstat(cf); err != nil {
		return diskError("rename", from, err)
	}
	if err := d.mkdirParents(ct); err != nil {
		return diskError("rename", to, err)
	}
	if err := d.root.Rename(cf, ct); err != nil {
		inner := innerError(err)
		if errors.Is(inner, ErrEscape) {
			return &fs.PathError{Op: "rename", Path: to, Err: ErrEscape}
		}
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: inner}
	}
	return nil
}

// Stat implements [FS].
func (d *Disk) Stat(name string) (fs.FileInfo, error) {
	c, err := clean("stat", name)
	if err != nil {
		return nil, err
	}
	fi, err := d.root.Stat(c)
	if err != nil {
		return nil, diskError("stat", name, err)
	}
	return fi, nil
}

// ReadDir implements [FS].
func (d *Disk) ReadDir(name string) ([]fs.DirEntry, error) {
	c, err := clean("readdir", name)
	if err != nil {
		return nil, err
	}
	var entries []fs.DirEntry
	if c == "." {
		entries, err = d.readTop()
	} else {
		entries, err = d.readDir(c)
	}
	if err != nil {
		return nil, diskError("readdir", name, err)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// readDir lists the directory c.
func (d *Disk) readDir(c string) ([]fs.DirEntry, error) {
	f, err := d.root.Open(c)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// readTop lists the root directory through one handle, kept open and
// rewound before each listing: a harness lists the root at every model
// call, and a seek costs less than an open, its setup and a close.
func (d *Disk) readTop() ([]fs.DirEntry, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.top == nil {
		f, err := d.root.Open(".")
		if err != nil {
			return nil, err
		}
		d.top = f
	} else if _, err := d.top.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return d.top.ReadDir(-1)
}

// Walk implements [FS].
func (d *Disk) Walk(fn func(path string, d fs.DirEntry) error) error {
	return walk(d, fn)
}

// openRegular opens the cleaned name c with flag (creating it with mode 0644
// under O_CREATE), refusing a file that is not a regular file (a named pipe,
// a device, a socket) without opening it, and a file with more than one hard
// link: os.Root stops symbolic links out of the root but not hard links, so
// such a file may be one outside it. The check is repeated on the open file,
// which is opened without blocking in case a pipe replaced the file meanwhile.
func (d *Disk) openRegular(c string, flag int) (*os.File, error) {
	if info, err := d.root.Stat(c); err == nil {
		if err := regularOnly(info); err != nil {
			return nil, err
		}
	}
	f, err := d.root.OpenFile(c, flag|nonBlocking, 0o644)
	if errors.Is(err, syscall.ENXIO) { // a pipe with no reader, opened to write
		return nil, ErrNotRegular
	}
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil {
		err = regularOnly(info)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// regularOnly refuses what openRegular does not open: a directory
// (syscall.EISDIR, as the system says), a special file (ErrNotRegular), a file
// with other hard links (ErrLinked).
func regularOnly(info fs.FileInfo) error {
	switch {
	case info.IsDir():
		return syscall.EISDIR
	case !info.Mode().IsRegular():
		return ErrNotRegular
	case linkCount(info) > 1:
		return ErrLinked
	}
	return nil
}

// mkdirParents creates the missing parent directories of the cleaned name c.
func (d *Disk) mkdirParents(c string) error {
	p := parent(c)
	if p == "." {
		return nil
	}
	return d.root.MkdirAll(p, 0o755)
}

// diskError rewrites an error of os.Root as an *fs.PathError naming the path
// the caller gave, so that the directory on disk never shows, and with a
// symbolic-link escape turned into ErrEscape.
func diskError(op, name string, err error) error {
	return &fs.PathError{Op: op, Path: name, Err: innerError(err)}
}

// escapeMessage is the text of the unexported error with which os.Root
// refuses a path that leaves it. The os package exports no sentinel for it, so
// innerError recognises it by its message.
const escapeMessage = "path escapes from parent"

// innerError maps os.Root's escape error, wherever it is in err's chain, to
// ErrEscape, and otherwise strips the *fs.PathError and *os.LinkError layers
// that os wraps around the cause (an errno such as syscall.ENOENT).
func innerError(err error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == escapeMessage {
			return ErrEscape
		}
	}
	for {
		switch e := err.(type) {
		case *fs.PathError:
			err = e.Err
		case *os.LinkError:
			err = e.Err
		default:
			return err
		}
	}
}
