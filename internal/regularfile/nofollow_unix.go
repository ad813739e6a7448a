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
