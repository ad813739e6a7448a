package scenario

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/regularfile"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/workspace"
)

// SeedBound returns the folder the setup.workspace.from of a scenario file
// at path must stay inside: the Go module holding it (the nearest folder
// above it with a go.mod), else the nearest enclosing folder named
// "scenarios", else the file's own folder. The file need not exist.
func SeedBound(path string) string {
	dir, _ := confinement(path)
	return dir
}

// confinement returns the folder a scenario's seed tree must stay inside and
// how messages name it: the Go module holding the scenario file (the nearest
// folder above it with a go.mod), else the nearest enclosing folder named
// "scenarios", else the scenario's own folder.
func confinement(file string) (dir, desc string) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return filepath.Dir(file), "the scenario's folder"
	}
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if info, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && info.Mode().IsRegular() {
			return d, "the module holding the scenario"
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	for d := filepath.Dir(abs); d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == "scenarios" {
			return d, "the scenarios folder"
		}
	}
	return filepath.Dir(abs), "the scenario's folder"
}

// decodeFrom checks setup.workspace.from: a folder, given relative to the
// scenario's folder, that stays inside its confinement without following a
// symbolic link out of it.
func decodeFrom(d *yamlx.Decoder, v *yaml.Node, key string, w *WorkspaceSetup, file string) error {
	from, err := d.Str(v, key)
	if err != nil {
		return err
	}
	switch {
	case from == "":
		return d.Errf(v, key, "empty (name a folder relative to the scenario's folder, or leave from out)")
	case filepath.IsAbs(from) || strings.HasPrefix(from, "/"):
		return d.Errf(v, key, "%q is an absolute path; give a folder relative to the scenario's folder", from)
	}
	bound, desc := confinement(file)
	abs, err := filepath.Abs(filepath.Join(filepath.Dir(file), filepath.FromSlash(from)))
	if err != nil {
		return d.Errf(v, key, "%q: %v", from, err)
	}
	rel, err := filepath.Rel(bound, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return d.Errf(v, key, "%q leads outside %s; a seed tree must be inside it", from, desc)
	}
	root, err := os.OpenRoot(bound)
	if err != nil {
		return d.Errf(v, key, "%q: %v", from, err)
	}
	defer root.Close()
	info, err := root.Stat(rel)
	switch {
	case err != nil && isEscape(err):
		return d.Errf(v, key, "%q leads outside %s through a symbolic link; a seed tree must be inside it", from, desc)
	case errors.Is(err, fs.ErrNotExist):
		return d.Errf(v, key, "%q does not exist (it is resolved against the scenario's folder)", from)
	case err != nil:
		return d.Errf(v, key, "%q: %v", from, errors.Unwrap(err))
	case !info.IsDir():
		return d.Errf(v, key, "%q is %s, not a folder", from, regularfile.Describe(info.Mode()))
	}
	w.From, w.FromLine, w.bound, w.rel = abs, v.Line, bound, rel
	return nil
}

// isEscape reports whether err is os.Root's refusal of a path that leaves it
// (the os package exports no sentinel for it).
func isEscape(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == "path escapes from parent" {
			return true
		}
	}
	return false
}

// OpenFrom opens the seed tree (From) as a root of its own, so that nothing
// beneath it is reached through a symbolic link leading out of it, nor out of
// the folder Parse confined it to.
func (w *WorkspaceSetup) OpenFrom() (*os.Root, error) {
	if w.bound == "" {
		return os.OpenRoot(w.From)
	}
	outer, err := os.OpenRoot(w.bound)
	if err != nil {
		return nil, err
	}
	defer outer.Close()
	return outer.OpenRoot(w.rel)
}

// decodeFiles checks setup.workspace.files: each name a file inside the
// workspace, none naming the same file as another.
func decodeFiles(d *yamlx.Decoder, v *yaml.Node, key string, w *WorkspaceSetup) error {
	lines := map[string]*yaml.Node{}
	return d.Pairs(v, key, func(name string, k, c *yaml.Node) error {
		content, err := d.Str(c, yamlx.Join(key, name))
		if err != nil {
			return err
		}
		if name == "" {
			return d.Errf(k, key, "empty file name")
		}
		clean, err := workspace.Clean(name)
		if err != nil {
			return d.Errf(k, key, "%q leads outside the workspace", name)
		}
		if clean == "." {
			return d.Errf(k, key, "%q names the workspace folder, not a file", name)
		}
		if prev, dup := lines[clean]; dup {
			return d.Errf(k, key, "%q names the same file as %q on line %d", name, prev.Value, prev.Line)
		}
		lines[clean] = k
		w.Files = append(w.Files, FileSeed{Path: name, Content: content, Line: k.Line})
		return nil
	})
}
