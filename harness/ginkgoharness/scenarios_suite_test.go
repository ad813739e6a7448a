package ginkgoharness_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/tapeloop/tapeloop/harness/ginkgoharness"
)

// TestScenarios replays tapeloop's bundled scenarios (../../scenarios) as a
// Ginkgo suite, one spec per scenario labelled with its tags, so that
// DescribeScenarios runs on a real folder:
//
//	cd harness/ginkgoharness && go test . -ginkgo.label-filter=files
//
// It only compares: `go test ./scenarios -update` in the main module
// rewrites the goldens.
func TestScenarios(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Scenarios")
}

var _ = ginkgoharness.DescribeScenarios("../../scenarios", nil)
