// Package ginkgoharness runs tapeloop scenarios as Ginkgo specs and offers
// Gomega matchers on a *harness.Outcome. It is a module of its own
// (github.com/tapeloop/tapeloop/harness/ginkgoharness) so that Ginkgo and
// Gomega enter only the module graph of a project that imports it, and
// neither harness nor evalrun links Ginkgo; with plain `go test`, use
// harness.Test instead.
//
// One spec per scenario of a folder, labelled with its tags:
//
//	var update = flag.Bool("update", false, "rewrite the golden files")
//	var _ = ginkgoharness.DescribeScenarios(".", &ginkgoharness.SuiteOptions{
//		Update: func() bool { return *update },
//		Tools:  []*toolkit.Factory{orders.LookupOrder}, // your tools, if any
//	})
//
// and matchers for outcomes of your own runs:
//
//	o, err := harness.Run(ctx, s, nil)
//	Expect(err).NotTo(HaveOccurred())
//	Expect(o).To(ginkgoharness.MatchGolden("testdata/retry.golden.yaml"))
//	Expect(o).To(ginkgoharness.TerminateWith(agent.ReasonFinalText))
//	Expect(o).To(ginkgoharness.CallToolsInOrder("read_file", "edit_file"))
//	Expect(o).To(ginkgoharness.RetryTool("fetch_weather", 2))
//	Expect(o).To(ginkgoharness.RepairCall("call_1", "trailing_comma"))
//	Expect(o).To(ginkgoharness.FailCallWith(scenario.CallAt(1, 3), tools.KindValidation))
//	Expect(o).To(ginkgoharness.HaveFileContent("notes.txt", "hello\n"))
//	Expect(o).To(ginkgoharness.HaveNoFile("old.txt"))
package ginkgoharness
