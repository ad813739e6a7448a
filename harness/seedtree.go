package harness

import (
	"fmt"
	"io/fs"

	"github.com/tapeloop/tapeloop/internal/regularfile"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/workspace"
)

// maxSeedFileSize bounds each file copied from setup.workspace.from, and
// maxSeedTreeSize all of them together, counted on the bytes read.
const (
	maxSeedFileSize = 16 << 20
	maxSeedTreeSize = 64 << 20
)

// copySeedTree copies every regular file of the seed tree into ws, each read
// only when it is a regular file of at most maxSeedFileSize bytes, all of them
// at most maxTree bytes (maxSeedTreeSize; a test lowers it). Symbolic links,
// named pipes and devices are never opened; a symbolic link to a folder is
// not followed.
func copySeedTree(ws workspace.FS, w *scenario.WorkspaceSetup, maxTree int64) error {
	root, err := w.OpenFrom()
	if err != nil {
		return err
	}
	defer root.Close()
	var total int64
	return fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := regularfile.ReadIn(root, p, maxSeedFileSize)
		if err != nil {
			return err
		}
		if total += int64(len(data)); total > maxTree {
			return fmt.Errorf("reading %s: %w: the seed tree holds more than the limit of %d bytes", p, regularfile.ErrTooLarge, maxTree)
		}
		if err := ws.WriteFile(p, data); err != nil {
			return fmt.Errorf("copying %s: %w", p, err)
		}
		return nil
	})
}
