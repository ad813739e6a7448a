package harness

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// TestOptions configures Test. A nil *TestOptions is the zero value.
type TestOptions struct {
	// Update rewrites the golden files instead of comparing with them
	// (expectations are still checked). When false, Test still updates if
	// the test binary has a boolean flag named "update" that is set: declare
	// it in your test package, and `go test -update` rewrites the goldens:
	//
	//	var _ = flag.Bool("update", false, "rewrite the golden files")
	Update bool
	// Tools are your tool factories, which scenarios name in setup.tools
	// like fixtures (see RunOptions.Tools); nil means the fixtures only.
	Tools []*toolkit.Factory
	// Checks are your checks, which scenarios call from expect.check (see
	// NewChecker); nil means none.
	Checks []*Checker
	// Agents run the bridged scenarios (setup.agent.go names one) with your
	// own agent: bridge.Runner makes each (see RunOptions.Agents). Nil
	// means none, and a scenario naming one fails.
	Agents map[string]Runner
	// Commands runs the scenarios whose agent is a program
	// (setup.agent.command): bridge.Runner(nil, nil). Nil makes such a
	// scenario fail.
	Commands Runner
	// AllowHosts lists what the scenarios' replays may reach through
	// http.DefaultTransport (see RunOptions.AllowHosts): an MCP server
	// over HTTP on localhost that a tool of yours calls, say. Nil means
	// nothing: each refused request fails its scenario.
	AllowHosts []string
	// Command is the program your module runs tapeloop's commands with (a
	// main of your own around evalrun.Main, such as supportrun, or
	// "go run ./cmd/supportrun"), named in hints such as how to record a
	// scenario's missing tape; empty means evalrun.
	Command string
}

// Test replays every scenario under dir (Discover), native or bridged
// (opts.Agents, opts.Commands), as a subtest of t named by the scenario's
// name, so that `go test -run 'TestScenarios/files/'` runs
// the scenarios under files/ and `go test -json` reports each one. A subtest
// fails with the scenario's load or run error, or with each of its failures:
// a divergence from the tape, an unused tape, the first difference from the
// golden, each failed expectation. A YAML file that is not a scenario (no
// format: line) is a skipped subtest saying so. t itself fails for each
// golden file no scenario refers to (Orphans), whatever -run selects, since
// -update never deletes a file.
//
//	var _ = flag.Bool("update", false, "rewrite the golden files")
//
//	func TestScenarios(t *testing.T) {
//		harness.Test(t, "scenarios", &harness.TestOptions{
//			Tools:  []*toolkit.Factory{orders.LookupOrder},
//			Agents: map[string]harness.Runner{"notes": bridge.Runner(notes.Agent, nil)},
//		})
//	}
func Test(t *testing.T, dir string, opts *TestOptions) {
	t.Helper()
	if opts == nil {
		opts = &TestOptions{}
	}
	vopts := goTestHints(opts.Command)
	vopts.Update = opts.Update || updateFlag()
	vopts.Tools, vopts.Checks = opts.Tools, opts.Checks
	vopts.Agents, vopts.Commands = opts.Agents, opts.Commands
	vopts.AllowHosts = opts.AllowHosts
	suite(t, dir, func(t *testing.T, s *scenario.Scenario) *Verdict {
		return VerifyScenario(t.Context(), s, vopts)
	})
}

// suite is Test with its way of verifying a scenario: every scenario under
// dir is a subtest of t, named by the scenario's name, that fails with its
// load error, verify's Err, or each of the verdict's failures; verify may
// skip the subtest. A YAML file that is not a scenario is a skipped
// subtest, and t fails for each orphan golden file.
func suite(t *testing.T, dir string, verify func(t *testing.T, s *scenario.Scenario) *Verdict) {
	t.Helper()
	paths, err := scenario.Discover(dir)
	if err != nil {
		t.Fatalf("finding the scenarios in %s: %v", dir, err)
	}
	if len(paths) == 0 {
		t.Fatalf("no scenario files in %s", dir)
	}
	for _, path := range paths {
		s, loadErr := scenario.Load(path)
		name := scenario.DefaultName(path)
		if loadErr == nil {
			name = s.Name
		}
		t.Run(name, func(t *testing.T) {
			switch {
			case errors.Is(loadErr, scenario.ErrNotScenario):
				fmt.Fprintln(t.Output(), loadErr)
				t.SkipNow()
			case loadErr != nil:
				fail(t, loadErr.Error())
				t.FailNow()
			}
			v := verify(t, s)
			if v.Err != nil {
				fail(t, v.Err.Error())
				t.FailNow()
			}
			if v.Updated {
				t.Logf("updated %s", v.Golden)
			}
			for _, f := range v.Failures {
				fail(t, f.Error())
			}
			if v.Updated && len(v.Failures) > 0 {
				t.Errorf("the golden %s was written, but the scenario fails: it is not blessed until the failures above are fixed", v.Golden)
			}
		})
	}
	orphans, err := scenario.Orphans(dir)
	if err != nil {
		t.Errorf("looking for orphan golden files in %s: %v", dir, err)
	}
	for _, o := range orphans {
		t.Errorf("golden file %s has no scenario: delete it, or restore its scenario", o)
	}
}

// fail marks t failed with msg, written without the line of this library
// that go test would put in front of it: the messages name the scenario's
// file and line themselves.
func fail(t *testing.T, msg string) {
	fmt.Fprintln(t.Output(), msg)
	t.Fail()
}

// goTestHints returns the options that make a verdict's hints right under
// go test of the package under test: Command as given (empty means
// evalrun), UpdateHint the go test command that rewrites this package's
// goldens, and HintDir the package's folder from the module root.
func goTestHints(command string) *VerifyOptions {
	pkg, _ := packageDir()
	return &VerifyOptions{Command: command, UpdateHint: goTestHint(), HintDir: pkg}
}

// goTestHint is the go test command that rewrites the goldens of the
// package under test: `go test ./DIR -update`, DIR the package's folder
// relative to the module root (packageDir). Without a go.mod above,
// `go test -update`.
func goTestHint() string {
	rel, ok := packageDir()
	switch {
	case !ok:
		return "go test -update"
	case rel == "":
		return "go test . -update"
	}
	return "go test ./" + rel + " -update"
}

// packageDir is the working directory (go test runs a test in its
// package's folder) relative to the module root, found by its go.mod, with
// slashes: "support", or "" at the root. ok is false without a go.mod
// above.
func packageDir() (rel string, ok bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil {
				return "", false
			}
			if rel == "." {
				return "", true
			}
			return filepath.ToSlash(rel), true
		}
		if filepath.Dir(dir) == dir {
			return "", false
		}
	}
}

// updateFlag reports whether the test binary has a set boolean flag named
// "update" (go test -update): what Test rewrites goldens on.
func updateFlag() bool {
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	b, ok := g.Get().(bool)
	return ok && b
}
