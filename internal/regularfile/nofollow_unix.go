//go:build unix

package regularfile

import (
	"fmt"
	"os"
	"syscall"
)

// ReadNoFollow is Read of a path whose last element is not a symbolic
// link: a link is not followed but refused (the error then says nothing
// more), so that a caller can read a plain file with one open and leave
// links to a check of where they lead (ReadIn).
func ReadNoFollow(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	return read(f, path, limit)
}

// OpenNoFollow opens the regular file at path, whose last element is not
// a symbolic link, for reading as it goes (a file compared piece by piece
// with what is being written): a link, or a file that is not regular, is
// refused as ReadNoFollow refuses it. The caller closes the file.
func OpenNoFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, unwrapPath(err))
	}
	if err := checkRegular(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
