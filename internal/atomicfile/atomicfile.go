// Package atomicfile writes files so that a reader sees either the old content
// or the whole new content, never a part: it writes a temporary file in the
// same directory, syncs it, and renames it over the target.
//
//	err := atomicfile.WriteFile("out.yaml", data)
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes what fn writes to path atomically, with mode 0644. When fn or
// any step fails, path is left as it was and the temporary file is removed;
// the error reads "writing <path>: <cause>".
func Write(path string, fn func(w io.Writer) error) error {
	p, err := Create(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer p.Cleanup()
	if err := fn(p); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := p.Commit(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// WriteFile writes data to path atomically.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Pending is a temporary file that replaces its target on Commit, for callers
// that word their own errors (Write is built on it). Always defer Cleanup.
type Pending struct {
	*os.File
	path string
}

// Create creates the temporary file for path in path's directory. Its error
// is os.CreateTemp's, unwrapped.
func Create(path string) (*Pending, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	return &Pending{File: f, path: path}, nil
}

// Commit syncs and closes the temporary file, sets its mode to 0644 and
// renames it over the target. Its error is the failing step's, unwrapped.
func (p *Pending) Commit() error {
	if err := p.Sync(); err != nil {
		p.Close()
		return err
	}
	if err := p.Close(); err != nil {
		return err
	}
	if err := os.Chmod(p.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(p.Name(), p.path)
}

// Cleanup closes and removes the temporary file unless Commit renamed it; after
// a successful Commit it does nothing.
func (p *Pending) Cleanup() {
	p.Close()           // an error once Commit has closed it
	os.Remove(p.Name()) // a no-op after the rename
}
