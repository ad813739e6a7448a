package harness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/internal/regularfile"
)

// TestGoldenLinkOutsideItsFolderIsRefused: a golden that is a symbolic link
// to a file outside its folder is neither read (and printed in a diff) nor
// replaced, as a named pipe is not (issue 21).
func TestGoldenLinkOutsideItsFolderIsRefused(t *testing.T) {
	base := t.TempDir()
	secret := filepath.Join(base, "secret.txt")
	os.WriteFile(secret, []byte("private\n"), 0o600)
	dir := filepath.Join(base, "scenarios")
	os.MkdirAll(dir, 0o755)
	golden := filepath.Join(dir, "a.golden.yaml")
	os.Symlink(secret, golden)
	err := CompareGolden(golden, []byte("name: a\n"))
	if !errors.Is(err, regularfile.ErrNotRegular) || strings.Contains(err.Error(), "private") {
		t.Errorf("CompareGolden: %v; want ErrNotRegular, not the file's content", err)
	}
	if _, err := updateGolden(golden, []byte("name: a\n")); !errors.Is(err, regularfile.ErrNotRegular) {
		t.Errorf("updateGolden: %v; want ErrNotRegular", err)
	}
	if data, _ := os.ReadFile(secret); string(data) != "private\n" {
		t.Errorf("the link's target was changed: %q", data)
	}
	// A link inside the folder is still read.
	os.WriteFile(filepath.Join(dir, "real.yaml"), []byte("name: b\n"), 0o644)
	inside := filepath.Join(dir, "b.golden.yaml")
	os.Symlink("real.yaml", inside)
	if err := CompareGolden(inside, []byte("name: b\n")); err != nil {
		t.Errorf("a link inside the folder: %v", err)
	}
}
