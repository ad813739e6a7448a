// Package scenarios_test replays every scenario file in this folder through
// the real registry and loop and compares each outcome with its golden file,
// one subtest per scenario (harness.Test).
//
//	go test ./scenarios                              # replay and compare
//	go test ./scenarios -update                      # rewrite the goldens that changed
//	go test ./scenarios -run 'TestScenarios/files/'  # only the scenarios under files/
//
// The same folder runs as a Ginkgo suite, selectable by tag, in the nested
// module harness/ginkgoharness (its scenarios_suite_test.go).
package scenarios_test

import (
	"flag"
	"os"
	"testing"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
)

var _ = flag.Bool("update", false, "rewrite the golden files")

func TestScenarios(t *testing.T) {
	harness.Test(t, ".", nil)
}

// TestGoldens checks the pairing of scenarios and goldens: every scenario has
// a golden and every golden has a scenario. It runs after TestScenarios (same
// file, later), so under -update it sees the goldens just written.
func TestGoldens(t *testing.T) {
	paths, err := scenario.Discover(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no scenario files in scenarios/")
	}
	for _, p := range paths {
		if _, err := os.Stat(scenario.GoldenPath(p)); err != nil {
			t.Errorf("scenario %s has no golden file %s: run go test ./scenarios -update, then review it", p, scenario.GoldenPath(p))
		}
	}
	orphans, err := scenario.Orphans(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range orphans {
		t.Errorf("golden file %s has no scenario: delete it, or restore its scenario", o)
	}
}
