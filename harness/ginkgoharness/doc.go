// Package ginkgoharness runs tapeloop scenarios as Ginkgo specs and offers
// Gomega matchers on a *harness.Outcome. It lives apart from package harness
// so that neither harness nor evalrun links Ginkgo; with plain `go test`, use
// harness.Test instead.
//
// One spec per scenario of a folder, labelled with its tags:
//
//	var update = flag.Bool("update", false, "rewrite the golden files")
//	var _ = ginkgoginkgoharness.DescribeScenarios(".", &ginkgoginkgoharness.SuiteOptions{
//		Update: func() bool { return *update },
//		Tools:  []*toolkit.Factory{orders.LookupOrder}, // your tools, if any
//	})
//
// and matchers for outcomes of your own runs:
//
//	o, err := harness.Run(ctx, s, nil)
//	Expect(err).NotTo(HaveOccurred())
//	Expect(o).To(ginkgoginkgoharness.MatchGolden("testdata/retry.golden.yaml"))
//	Expect(o).To(ginkgoginkgoharness.TerminateWith(agent.ReasonFinalText))
//	Expect(o).To(ginkgoginkgoharness.CallToolsInOrder("read_file", "edit_file"))
//	Expect(o).To(ginkgoginkgoharness.RetryTool("fetch_weather", 2))
//	Expect(o).To(ginkgoginkgoharness.RepairCall("call_1", "trailing_comma"))
//	Expect(o).To(ginkgoginkgoharness.FailCallWith(scenario.CallAt(1, 3), tools.KindValidation))
//	Expect(o).To(ginkgoginkgoharness.HaveFileContent("notes.txt", "hello\n"))
//	Expect(o).To(ginkgoginkgoharness.HaveNoFile("old.txt"))
package ginkgoharness
