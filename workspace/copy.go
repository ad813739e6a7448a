package workspace

import (
	"fmt"
	"io/fs"
)

// CopyFS copies every regular file of src into dst, in lexical order, at the
// same slash-separated path, creating directories as needed. Directories
// without regular files, symbolic links and other special files are not
// copied. CopyFS stops at the first error.
//
//	err := workspace.CopyFS(w, os.DirFS("fixtures/workspaces/go-module"))
func CopyFS(dst FS, src fs.FS) error {
	return fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		if err := dst.WriteFile(p, data); err != nil {
			return fmt.Errorf("copying %s: %w", p, err)
		}
		return nil
	})
}

// Snapshot returns the content of every regular file of w by its
// slash-separated relative path. Directories, symbolic links and special
// files are left out, and a file of [Disk] with several hard links is an
// error wrapping [ErrLinked]; [Entries] shows every entry as what it is.
// The map is never nil.
func Snapshot(w FS) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := w.Walk(func(p string, d fs.DirEntry) error {
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := w.ReadFile(p)
		if err != nil {
			return err
		}
		files[p] = data
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}
