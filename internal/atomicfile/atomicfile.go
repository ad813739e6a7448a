// Package atomicfile writes files so that a reader sees either the old content
// or the whole new content, never a part: it writes a temporary file in the
// same directory (named by TempPrefix, which fits any file name), syncs
// it, and renames it over the target.
//
//	err := atomicfile.WriteFile("out.yaml", data)
package atomicfile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"
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

// NameMax is the longest file name the usual file systems take
// (NAME_MAX: ext4, XFS, Btrfs, APFS, tmpfs).
const NameMax = 255

// tempSuffixMax is the most a temporary file's name adds after its
// TempPrefix: os.CreateTemp's random number (a uint32, at most 10 digits),
// or a process id.
const tempSuffixMax = 10

// keptTail is how much of the end of a long name its temporary file's
// name keeps, so that a golden's is still known by its suffix
// (scenario.IsStaleTemp).
const keptTail = 16

// TempPrefix returns how the name of the temporary file a write of the
// file named name (a base name, no folder) goes through starts, in name's
// folder: ".NAME.tmp", to be followed by at most 10 digits. Where that
// would not fit in a file name (255 bytes), NAME is shortened to its
// start, "~", 8 hex digits of its SHA-256 and its last 16 bytes (a
// golden's ".golden.yaml"), cut on whole UTF-8 characters, so any name a
// file may have can be written atomically.
func TempPrefix(name string) string {
	p := "." + name + ".tmp"
	if len(p)+tempSuffixMax <= NameMax {
		return p
	}
	sum := sha256.Sum256([]byte(name))
	mark := "~" + hex.EncodeToString(sum[:4])
	t := len(name) - keptTail
	for t < len(name) && !utf8.RuneStart(name[t]) {
		t++
	}
	tail := name[t:]
	h := NameMax - tempSuffixMax - len(".") - len(mark) - len(tail) - len(".tmp")
	for h > 0 && !utf8.RuneStart(name[h]) {
		h--
	}
	return "." + name[:h] + mark + tail + ".tmp"
}

// Create creates the temporary file for path in path's directory, named
// TempPrefix and a random number. Its error is os.CreateTemp's, unwrapped.
func Create(path string) (*Pending, error) {
	f, err := os.CreateTemp(filepath.Dir(path), TempPrefix(filepath.Base(path))+"*")
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
