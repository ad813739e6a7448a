// Package report holds the result documents tapeloop writes — the replay
// result (tapeloop-replay/v1) and the eval report (tapeloop-eval/v1), one
// versioned JSON family documented in docs/reports.md — and the renderers
// that turn them into other forms: JUnit XML for CI, and one self-contained
// HTML page (no network, every string escaped) to read a failure by looking
// at it: the summary, filters, and per scenario the transcript turn by turn
// with each turn's workspace diff, the expectations and the golden
// difference. It also shards a suite (Shard) and merges the shards' results
// back into one (MergeReplay), recomputing every statistic from the
// per-scenario and per-trial records. It links no harness, MCP or provider
// SDK: package report/fromharness builds its records from harness results.
//
//	var results []report.ScenarioResult
//	for _, path := range paths {
//		start := time.Now()
//		v := harness.Verify(ctx, path, nil)
//		results = append(results, fromharness.ScenarioResult(v, time.Since(start)))
//	}
//	r := report.NewReplay(results, nil)
//	r.WriteJSON(os.Stdout)  // tapeloop-replay/v1
//	r.WriteHTML(htmlFile)   // open it in a browser
//	r.WriteJUnit(junitFile) // for GitHub, GitLab, Jenkins
package report
