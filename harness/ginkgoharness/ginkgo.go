package ginkgoharness

import (
	"errors"
	"strconv"
	"strings"

	"github.com/onsi/ginkgo/v2"
	gtypes "github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// SuiteOptions configures DescribeScenarios. A nil *SuiteOptions is the zero
// value.
type SuiteOptions struct {
	// Update reports whether to rewrite the golden files instead of comparing
	// with them. It is called inside each spec, after flags are parsed; nil
	// means never update.
	Update func() bool
	// Tools are your tool factories, which scenarios name in setup.tools
	// like fixtures (harness.RunOptions.Tools); nil means the fixtures only.
	Tools []*toolkit.Factory
}

// DescribeScenarios declares, when the Ginkgo spec tree is built, a container
// "scenarios in <dir>" with one spec per scenario file under dir (Discover),
// named by the scenario's name and labelled with its tags, so that
// `ginkgo --label-filter=files` selects scenarios by tag. Each spec runs
// harness.Verify and fails with the verdict's error or its failures: a
// divergence from the tape, the first difference from the golden, each failed
// expectation. With opts.Update reporting true the spec rewrites the golden
// instead of comparing (expectations are still checked).
//
// A scenario file that does not load still gets a spec, named by its path,
// that fails with the load error (file:line: key: problem). A tag that is not
// a valid Ginkgo label fails its scenario's spec instead of the whole tree.
//
// The container ends with a spec "has a scenario for every golden file" that
// fails, in both modes, naming each golden file no scenario refers to
// (Orphans): -update rewrites goldens but never deletes a file, so a stale
// golden is left for a person to delete, and failing is the one report that
// cannot be missed (GinkgoWriter output is only shown for failing specs or
// with -v). It does not depend on the order specs run in: updating only
// writes goldens of existing scenarios, which are never orphans.
//
// Use it at the top level of a suite file:
//
//	var update = flag.Bool("update", false, "rewrite the golden files")
//	var _ = ginkgoharness.DescribeScenarios(".", &ginkgoharness.SuiteOptions{Update: func() bool { return *update }})
func DescribeScenarios(dir string, opts *SuiteOptions) bool {
	if opts == nil {
		opts = &SuiteOptions{}
	}
	update := func() bool { return opts.Update != nil && opts.Update() }
	paths, discoverErr := scenario.Discover(dir)
	return ginkgo.Describe("scenarios in "+dir, func() {
		if discoverErr != nil {
			ginkgo.It("finds the scenario files", func() {
				gomega.Expect(readable(discoverErr)).NotTo(gomega.HaveOccurred(), "finding the scenarios in %s", dir)
			})
			return
		}
		for _, path := range paths {
			describeScenario(dir, path, update, opts.Tools)
		}
		ginkgo.It("has a scenario for every golden file", func() {
			orphans, err := scenario.Orphans(dir)
			gomega.Expect(readable(err)).NotTo(gomega.HaveOccurred(), "looking for orphan golden files in %s", dir)
			gomega.Expect(listed(orphans)).To(gomega.BeEmpty(),
				"golden files that no scenario refers to (-update never deletes files; delete them, or restore their scenarios):\n%s",
				strings.Join(orphans, "\n"))
		})
	})
}

// describeScenario declares the spec of one scenario file. Loading here, at
// tree construction, gives the spec its name and labels; Verify loads it
// again inside the spec.
func describeScenario(dir, path string, update func() bool, userTools []*toolkit.Factory) {
	s, loadErr := scenario.Load(path)
	if errors.Is(loadErr, scenario.ErrNotScenario) {
		ginkgo.It(path, func() { ginkgo.Skip(loadErr.Error()) })
		return
	}
	if loadErr != nil {
		ginkgo.It(path, func() {
			gomega.Expect(readable(loadErr)).NotTo(gomega.HaveOccurred(), "scenario %s does not load", path)
		})
		return
	}
	var labels ginkgo.Labels
	var labelErrs []string
	for _, tag := range s.Tags {
		label, err := gtypes.ValidateAndCleanupLabel(tag, gtypes.CodeLocation{FileName: path})
		if err != nil {
			labelErrs = append(labelErrs, "tag "+tag+" cannot be a Ginkgo label: it is empty, starts with ':' or holds one of &|!,()/")
			continue
		}
		labels = append(labels, label)
	}
	ginkgo.It(s.Name, labels, func(ctx ginkgo.SpecContext) {
		v := harness.Verify(ctx, path, &harness.VerifyOptions{Update: update(), Tools: userTools})
		gomega.Expect(readable(v.Err)).NotTo(gomega.HaveOccurred(), "scenario %s could not be loaded or run", path)
		if v.Updated {
			ginkgo.GinkgoWriter.Printf("updated %s\n", v.Golden)
		}
		failures := make([]string, len(v.Failures))
		for i, f := range v.Failures {
			failures[i] = f.Error()
		}
		gomega.Expect(listed(failures)).To(gomega.BeEmpty(), "scenario %s (%s) failed:\n\n%s\n", s.Name, path, strings.Join(failures, "\n\n"))
		gomega.Expect(listed(labelErrs)).To(gomega.BeEmpty(), "scenario %s has tags that are not valid labels:\n%s\n", path, strings.Join(labelErrs, "\n"))
	})
}

// specError shows an error in a Gomega failure as its text alone, instead of
// Gomega's dump of the whole error chain.
type specError struct{ error }

// GomegaString is empty: Gomega already prints the error's text.
func (e specError) GomegaString() string { return "" }

// Unwrap returns the error shown.
func (e specError) Unwrap() error { return e.error }

// readable wraps a non-nil error as a specError; nil stays nil.
func readable(err error) error {
	if err == nil {
		return nil
	}
	return specError{err}
}

// specList is a list already spelt out in the failure's description; Gomega
// shows only its length instead of repeating it quoted.
type specList []string

// GomegaString returns the number of items.
func (l specList) GomegaString() string {
	if len(l) == 1 {
		return "1 item, listed above"
	}
	return strconv.Itoa(len(l)) + " items, listed above"
}

func listed(items []string) specList { return specList(items) }
