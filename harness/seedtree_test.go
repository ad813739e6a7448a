package harness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/internal/regularfile"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/workspace"
)

// TestSeedTreeLimitIsInclusive: a seed tree of exactly the limit is
// copied; one byte more is refused, naming the file that crossed it.
func TestSeedTreeLimitIsInclusive(t *testing.T) {
	dir := t.TempDir()
	seed := filepath.Join(dir, "seed")
	if err := os.Mkdir(seed, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(seed, "a.txt"), "12345")
	writeFile(t, filepath.Join(seed, "b.txt"), "67890")
	path := filepath.Join(dir, "s.yaml")
	writeFile(t, path, "format: tapeloop/v1\nsetup:\n  workspace:\n    from: seed\ninput: [{role: user, content: hi}]\ntape: []\n")
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ws := workspace.NewMemory()
	if err := copySeedTree(ws, &s.Setup.Workspace, 10); err != nil {
		t.Errorf("a 10-byte tree at a limit of 10: %v", err)
	}
	if got, err := ws.ReadFile("b.txt"); err != nil || string(got) != "67890" {
		t.Errorf("b.txt = %q, %v", got, err)
	}
	err = copySeedTree(workspace.NewMemory(), &s.Setup.Workspace, 9)
	if !errors.Is(err, regularfile.ErrTooLarge) || !strings.HasPrefix(err.Error(), "reading b.txt: ") {
		t.Errorf("a 10-byte tree at a limit of 9: %v, want b.txt too large", err)
	}
}
