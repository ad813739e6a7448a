package harness_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/examples/orders"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
)

// An external test: examples/orders imports harness (its check of its own),
// so a test in package harness cannot import it.

// TestBundledGoldensHoldTheirOutcomes runs every bundled scenario
// (scenarios/** and examples/**) and checks its golden by property: valid
// YAML that reads back to the outcome's document, the same bytes when
// written again (see checkGolden), and equal to the golden file.
func TestBundledGoldensHoldTheirOutcomes(t *testing.T) {
	ctx := context.Background()
	total := 0
	for _, root := range []string{"../scenarios", "../examples"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".golden.yaml") {
				return err
			}
			file := strings.TrimSuffix(path, ".golden.yaml") + ".yaml"
			s, err := scenario.Load(file)
			if err != nil {
				t.Errorf("%s: %v", file, err)
				return nil
			}
			if s.Setup.Agent != nil {
				// A bridged scenario's goldens come from its own agent
				// (package bridge); its tests check them.
				return nil
			}
			o, err := harness.Run(ctx, s, &harness.RunOptions{Tools: orders.Tools()})
			if err != nil {
				t.Errorf("%s: %v", file, err)
				return nil
			}
			total++
			if harness.CheckGolden(t, o) {
				t.Errorf("%s: the golden writer refused it", file)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if total < 50 {
		t.Errorf("checked %d bundled goldens; want at least 50", total)
	}
}
