package workspace

import (
	"errors"
	"io/fs"
	"path"
)

// walk implements FS.Walk on top of ReadDir, so the callback runs without any
// lock held and may call back into the workspace. A directory that vanishes
// between being listed and being read (a concurrent remove) is skipped.
func walk(w FS, fn func(path string, d fs.DirEntry) error) error {
	err := walkDir(w, ".", fn)
	if errors.Is(err, fs.SkipAll) || errors.Is(err, fs.SkipDir) {
		return nil
	}
	return err
}

func walkDir(w FS, dir string, fn func(path string, d fs.DirEntry) error) error {
	entries, err := w.ReadDir(dir)
	if err != nil {
		if dir != "." && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	for _, e := range entries {
		p := e.Name()
		if dir != "." {
			p = path.Join(dir, e.Name())
		}
		err := fn(p, e)
		if err == nil && e.IsDir() {
			err = walkDir(w, p, fn)
		}
		if err != nil {
			if errors.Is(err, fs.SkipDir) && e.IsDir() {
				continue
			}
			return err
		}
	}
	return nil
}
