package atomicfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Output writes what fn writes to the result file at path (a report a
// command was asked for): a regular file, or a path that does not exist, is
// replaced atomically, as Write does; a symbolic link to a regular file
// keeps the link and has its target replaced; anything else — a device
// (/dev/stdout, /dev/full), a named pipe, a link to one, a path under /dev
// or /proc — is written through, opened for appending and never replaced.
// The error reads "writing <path>: <cause>".
func Output(path string, fn func(w io.Writer) error) error {
	target, through, err := outputTarget(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if !through {
		return Write(target, fn)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := fn(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// outputTarget says how Output writes path: replacing target atomically,
// or through path when through is set.
func outputTarget(path string) (target string, through bool, err error) {
	if abs, err := filepath.Abs(path); err == nil && (strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/")) {
		return path, true, nil
	}
	info, err := os.Lstat(path)
	switch {
	case err != nil && os.IsNotExist(err):
		return path, false, nil
	case err != nil:
		return "", false, err
	case info.Mode().IsRegular():
		return path, false, nil
	case info.Mode()&fs.ModeSymlink == 0:
		return path, true, nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return path, true, nil // a link to nothing (yet): written through
	}
	if info, err := os.Stat(real); err == nil && info.Mode().IsRegular() {
		return real, false, nil
	}
	return path, true, nil
}
