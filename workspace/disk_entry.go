package workspace

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// errChanged is returned when a file changed kind or identity between its
// status and its opening, more times in a row than Disk tries.
var errChanged = errors.New("file replaced while being read")

// lstat implements entryReader.
func (d *Disk) lstat(c string) (fs.FileInfo, error) {
	return d.root.Lstat(c)
}

// entryOf implements entryReader. A regular file is opened without
// blocking and read only if the opened file is the one info describes,
// with one link; otherwise its status is taken again and the entry
// described anew.
func (d *Disk) entryOf(c string, info fs.FileInfo) (Entry, error) {
	for range 3 {
		switch k := kindOf(info.Mode()); k {
		case KindSymlink:
			target, err := d.root.Readlink(c)
			if err != nil {
				return Entry{}, err
			}
			return Entry{Kind: KindSymlink, Target: target}, nil
		case KindFile:
			if linkCount(info) > 1 {
				return Entry{}, ErrLinked
			}
			data, ok, err := d.readIf(c, info, 1)
			if err != nil {
				return Entry{}, err
			}
			if ok {
				return Entry{Data: data, Exec: info.Mode()&0o100 != 0}, nil
			}
		default:
			return Entry{Kind: k}, nil
		}
		var err error
		if info, err = d.root.Lstat(c); err != nil {
			return Entry{}, err
		}
	}
	return Entry{}, errChanged
}

// readShared implements entryReader.
func (d *Disk) readShared(c string, info fs.FileInfo, nlink uint64) ([]byte, error) {
	data, ok, err := d.readIf(c, info, nlink)
	if err == nil && !ok {
		err = ErrLinked
	}
	return data, err
}

// readIf reads the regular file c if, opened, it is the file info
// describes with nlink links; ok is false when it is not. A non-empty file
// read is never nil.
func (d *Disk) readIf(c string, info fs.FileInfo, nlink uint64) (data []byte, ok bool, err error) {
	f, err := d.root.OpenFile(c, os.O_RDONLY|nonBlocking, 0)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() || !os.SameFile(fi, info) || linkCount(fi) != nlink {
		return nil, false, nil
	}
	data, err = io.ReadAll(f)
	if err != nil {
		return nil, false, err
	}
	if data == nil {
		data = []byte{}
	}
	return data, true, nil
}
