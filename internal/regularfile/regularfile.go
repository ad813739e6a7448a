// Package regularfile reads files that must be regular files of bounded size:
// scenario, golden and seed files. A symbolic link to /dev/zero, a named pipe
// or a huge sparse file is refused with an error naming the file and the
// reason, never read until memory runs out or blocked on forever.
//
// The file is opened without blocking (so opening a named pipe returns at
// once), checked to be a regular file on the open descriptor (so a file
// swapped after a Stat is still caught), and read through a limit counted on
// the bytes read, not taken from Stat.
//
//	data, err := regularfile.Read("scenarios/a.yaml", 16<<20)
//	// errors.Is(err, regularfile.ErrNotRegular) for /dev/zero or a FIFO
//	// errors.Is(err, regularfile.ErrTooLarge) past 16 MiB
package regularfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is wrapped by the error for a file that is not a regular file
// (a device, a named pipe, a socket, a directory).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error for a file with more bytes than the
// limit.
var ErrTooLarge = errors.New("file too large")

// Read reads the regular file at path, following symbolic links, refusing it
// when it is not a regular file or holds more than limit bytes. Errors read
// "reading PATH: ..." and wrap ErrNotRegular, ErrTooLarge or the cause
// (fs.ErrNotExist for a missing file).
func Read(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	return read(f, path, limit)
}

// ReadIn reads the regular file name beneath root like Read; a symbolic link
// that leads out of root is refused by root.
func ReadIn(root *os.Root, name string, limit int64) ([]byte, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, unwrapPath(err))
	}
	defer f.Close()
	return read(f, name, limit)
}

// read checks that the open file is regular and reads at most limit bytes.
func read(f *os.File, path string, limit int64) ([]byte, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, unwrapPath(err))
	}
	if err := regular(info, path); err != nil {
		return nil, err
	}
	// Stat's size only sizes the buffer; the limit is counted on the bytes
	// read, so a file that grows (or lies) is still cut off.
	data := make([]byte, 0, min(max(info.Size(), 512), limit)+1)
	for int64(len(data)) <= limit {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		room := min(int64(cap(data)), limit+1)
		n, err := f.Read(data[len(data):room])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, unwrapPath(err))
		}
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("reading %s: %w: more than the limit of %d bytes", path, ErrTooLarge, limit)
	}
	return data, nil
}

// checkRegular returns the error for the open file f at path when it is
// not a regular file, as read words it.
func checkRegular(f *os.File, path string) error {
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, unwrapPath(err))
	}
	return regular(info, path)
}

// regular returns the error for a file at path that info says is not
// regular.
func regular(info fs.FileInfo, path string) error {
	if !info.Mode().IsRegular() {
		return fmt.Errorf("reading %s: %w (%s); only regular files are read", path, ErrNotRegular, Describe(info.Mode()))
	}
	return nil
}

// Describe names the kind of file a mode is, for messages.
func Describe(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "an irregular file"
}

// unwrapPath drops an *fs.PathError layer, whose path the caller's message
// already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
