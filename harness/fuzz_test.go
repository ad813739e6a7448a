package harness

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
)

// fuzzScenarioFile is the file name fuzzed scenarios are parsed as: two
// folders below the bundled scenarios, like the bundled files themselves, so
// that a seed's setup.workspace.from resolves as it does in the repository.
const fuzzScenarioFile = "../scenarios/fuzz/input.yaml"

// FuzzScenarioDeterminism parses a scenario, runs it twice under different
// scheduling perturbations and requires byte-identical goldens: an outcome
// that depends on scheduling or on map order (as validation messages once
// did) is a failure. It is seeded with every bundled scenario; the committed
// corpus under testdata/fuzz holds the inputs that once failed.
//
//	go test -run '^$' -fuzz '^FuzzScenarioDeterminism$' -fuzztime 20s ./harness
func FuzzScenarioDeterminism(f *testing.F) {
	err := filepath.WalkDir("../scenarios", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, scenario.GoldenSuffix) {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f.Add(data)
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := scenario.Parse(data, fuzzScenarioFile, "fuzz/input")
		if err != nil {
			return
		}
		golden := func(perturb uint64) []byte {
			o, err := Run(context.Background(), s, &RunOptions{Perturb: perturb})
			if err != nil {
				return []byte("could not run: " + err.Error())
			}
			g, err := o.Golden(redact.Default())
			if err != nil {
				t.Fatalf("encoding the outcome: %v", err)
			}
			return g
		}
		first, second := golden(1), golden(0x9e3779b97f4a7c15)
		if !bytes.Equal(first, second) {
			t.Fatalf("two runs under different scheduling perturbations differ (- first, + second; first difference):\n%s", udiff.FirstHunk(string(first), string(second)))
		}
	})
}
