package workspace

import (
	"errors"
	"io/fs"
	"strconv"
)

// Kind is what a workspace entry is. The zero Kind is a regular file.
type Kind uint8

// The kinds of [Entry].
const (
	// KindFile is a regular file: its content is the entry's Data.
	KindFile Kind = iota
	// KindDir is a directory; [Entries] leaves directories out.
	KindDir
	// KindSymlink is a symbolic link: its target, as written, is the
	// entry's Target. It is never followed.
	KindSymlink
	// KindHardLink is a regular file that is also reachable by another name
	// in the workspace: Target is that name, the first of the file's names
	// in byte order, whose entry holds the content.
	KindHardLink
	// KindOutsideLink is a regular file with a hard link whose other names
	// are not all in the workspace: it may be a file outside the root, so
	// its content is never read.
	KindOutsideLink
	// KindNamedPipe, KindSocket, KindCharDevice and KindBlockDevice are
	// special files, never opened (opening a pipe blocks; opening a
	// device may act on it).
	KindNamedPipe
	KindSocket
	KindCharDevice
	KindBlockDevice
	// KindIrregular is any other kind of file the system reports.
	KindIrregular
)

// kindNames are the kinds as Entry.String writes them.
var kindNames = [...]string{
	KindFile:        "regular file",
	KindDir:         "directory",
	KindSymlink:     "symbolic link",
	KindHardLink:    "hard link",
	KindOutsideLink: "hard link to a file outside the workspace",
	KindNamedPipe:   "named pipe",
	KindSocket:      "socket",
	KindCharDevice:  "character device",
	KindBlockDevice: "block device",
	KindIrregular:   "irregular file",
}

// String names the kind: "regular file", "symbolic link", "named pipe".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown kind"
}

// Entry is one entry of a workspace as a record of it shows it (the
// per-turn diff, the golden's end state), read without following a
// symbolic link and without opening a special file. The zero Entry is an
// empty, non-executable regular file.
type Entry struct {
	// Kind is what the entry is.
	Kind Kind
	// Data is a regular file's content; nil for every other kind.
	Data []byte
	// Exec is set for a regular file its owner may execute (git's mode
	// 100755 rather than 100644); the other permission bits are not kept.
	Exec bool
	// Target is a symbolic link's target as written (it may lead outside
	// the workspace, or nowhere), or the name a KindHardLink shares its
	// content with; "" for the other kinds.
	Target string
}

// Equal reports whether e and f show the same: kind, content, mode and
// target.
func (e Entry) Equal(f Entry) bool {
	return e.Kind == f.Kind && e.Exec == f.Exec && e.Target == f.Target && string(e.Data) == string(f.Data)
}

// String describes an entry that is not a regular file, as the golden's
// end state shows it in place of content: "<symbolic link to ../a>",
// "<hard link to a.txt>", "<named pipe>". For a regular file it is
// "<regular file, N bytes>".
func (e Entry) String() string {
	switch e.Kind {
	case KindFile:
		return "<regular file, " + strconv.Itoa(len(e.Data)) + " bytes>"
	case KindSymlink, KindHardLink:
		return "<" + e.Kind.String() + " to " + e.Target + ">"
	}
	return "<" + e.Kind.String() + ">"
}

// kindOf returns the kind of an entry of mode m (its type bits).
func kindOf(m fs.FileMode) Kind {
	switch t := m.Type(); {
	case t == 0:
		return KindFile
	case t&fs.ModeDir != 0:
		return KindDir
	case t&fs.ModeSymlink != 0:
		return KindSymlink
	case t&fs.ModeNamedPipe != 0:
		return KindNamedPipe
	case t&fs.ModeSocket != 0:
		return KindSocket
	case t&fs.ModeCharDevice != 0:
		return KindCharDevice
	case t&fs.ModeDevice != 0:
		return KindBlockDevice
	}
	return KindIrregular
}

// entryReader is a workspace whose entries may be links and special files
// ([Disk]): it describes one without following or opening it, and reads
// the content of a file with several hard links once its names are known to
// all lie in the workspace.
type entryReader interface {
	FS
	// lstat describes the cleaned name c without following a final
	// symbolic link.
	lstat(c string) (fs.FileInfo, error)
	// entryOf returns the entry of c, whose status is info, for every kind
	// but a regular file with more than one link.
	entryOf(c string, info fs.FileInfo) (Entry, error)
	// readShared reads the content of c, a regular file of nlink hard
	// links, all of them in the workspace, refusing it if its link count
	// changed.
	readShared(c string, info fs.FileInfo, nlink uint64) ([]byte, error)
}

// ReadEntry describes the named entry of w: a regular file with its content
// and mode, a directory (KindDir, nothing else), a symbolic link with its
// target (never followed, wherever it leads), a special file by its kind
// (never opened). A regular file with more than one hard link is shown by
// the first of its names in the workspace, in byte order, with its
// content; any other of its names as a KindHardLink to that first one;
// and, when not all of its names lie in the workspace, as a
// KindOutsideLink whose content is not read. Finding a hard link's other
// names lists the whole workspace.
//
// Errors are those of [FS] (fs.ErrNotExist for an absent name, ErrEscape
// for a refused one). A workspace other than [Disk] has only regular files
// and directories unless it reports other types from ReadDir.
func ReadEntry(w FS, name string) (Entry, error) {
	c, err := clean("lstat", name)
	if err != nil {
		return Entry{}, err
	}
	er, ok := w.(entryReader)
	if !ok {
		return plainEntry(w, name)
	}
	info, err := er.lstat(c)
	if err != nil {
		return Entry{}, diskError("lstat", name, err)
	}
	if kindOf(info.Mode()) != KindFile || linkCount(info) <= 1 {
		e, err := er.entryOf(c, info)
		if err != nil {
			return Entry{}, diskError("read", name, err)
		}
		return e, nil
	}
	// A file of several names: find the others.
	var names []string
	err = w.Walk(func(p string, d fs.DirEntry) error {
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil // gone meanwhile
		}
		if sameFile(fi, info) {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return Entry{}, err
	}
	return sharedEntry(er, c, info, names)
}

// sharedEntry returns the entry of c, a regular file with more than one
// hard link whose names in the workspace are names (in walk order, so
// byte order of their paths' parts).
func sharedEntry(er entryReader, c string, info fs.FileInfo, names []string) (Entry, error) {
	if uint64(len(names)) < linkCount(info) {
		return Entry{Kind: KindOutsideLink}, nil
	}
	first := firstName(names)
	if first != c {
		return Entry{Kind: KindHardLink, Target: first}, nil
	}
	data, err := er.readShared(c, info, uint64(len(names)))
	if errors.Is(err, ErrLinked) {
		return Entry{Kind: KindOutsideLink}, nil // linked meanwhile
	}
	if err != nil {
		return Entry{}, diskError("read", c, err)
	}
	return Entry{Data: data, Exec: info.Mode()&0o100 != 0}, nil
}

// firstName returns the least of names in byte order.
func firstName(names []string) string {
	first := names[0]
	for _, n := range names[1:] {
		if n < first {
			first = n
		}
	}
	return first
}

// plainEntry is ReadEntry for a workspace of regular files and
// directories.
func plainEntry(w FS, name string) (Entry, error) {
	data, readErr := w.ReadFile(name)
	if readErr == nil {
		return Entry{Data: data}, nil
	}
	fi, err := w.Stat(name)
	if err != nil {
		return Entry{}, err
	}
	if fi.IsDir() {
		return Entry{Kind: KindDir}, nil
	}
	if k := kindOf(fi.Mode()); k != KindFile {
		return Entry{Kind: k}, nil
	}
	return Entry{}, readErr
}

// Entries returns every entry of w that is not a directory, by its
// slash-separated relative path, as [ReadEntry] describes it, listing w
// once: hard links are resolved among the names found. The map is never
// nil. A name gone between the listing and its reading is left out.
func Entries(w FS) (map[string]Entry, error) {
	out := map[string]Entry{}
	er, ok := w.(entryReader)
	type shared struct {
		info  fs.FileInfo
		names []string
	}
	var groups []*shared
	err := w.Walk(func(p string, d fs.DirEntry) error {
		if d.IsDir() {
			return nil
		}
		if !ok {
			e, err := plainEntry(w, p)
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			out[p] = e
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if kindOf(info.Mode()) == KindFile && linkCount(info) > 1 {
			for _, g := range groups {
				if sameFile(g.info, info) {
					g.names = append(g.names, p)
					return nil
				}
			}
			groups = append(groups, &shared{info: info, names: []string{p}})
			return nil
		}
		e, err := er.entryOf(p, info)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return diskError("read", p, err)
		}
		out[p] = e
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		for _, p := range g.names {
			e, err := sharedEntry(er, p, g.info, g.names)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			out[p] = e
		}
	}
	return out, nil
}
