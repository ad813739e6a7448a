package report_test

import (
	"bytes"
	"fmt"

	"github.com/tapeloop/tapeloop/report"
)

// ExampleNewReplay builds a replay result from per-scenario records (what
// report/fromharness makes of harness verdicts), writes it as
// tapeloop-replay/v1 JSON and reads it back, as `evalrun report` does with a
// saved result. Decoding links no harness.
func ExampleNewReplay() {
	r := report.NewReplay([]report.ScenarioResult{
		{Name: "files/append", Path: "scenarios/files/append.yaml", Status: report.StatusPass, Seconds: 0.002},
		{Name: "errors/flaky", Path: "scenarios/errors/flaky.yaml", Status: report.StatusFail, Seconds: 0.003,
			Failures: []string{"scenarios/errors/flaky.yaml:12: expect.retries: expected fetch to be retried 2 times, found 1"}},
	}, nil)
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		panic(err)
	}
	back, err := report.DecodeReplay("result.json", buf.Bytes())
	if err != nil {
		panic(err)
	}
	fmt.Println(back.Format, back.Summary.Scenarios, back.Summary.Passed, back.Summary.Failed)
	for _, s := range back.Scenarios {
		fmt.Println(s.Status, s.Name)
	}
	_, err = report.DecodeReplay("other.json", []byte(`{"format": "tapeloop-eval/v1"}`))
	fmt.Println(err)
	// Output:
	// tapeloop-replay/v1 2 1 1
	// fail errors/flaky
	// pass files/append
	// not a tapeloop result: other.json: format "tapeloop-eval/v1", want "tapeloop-replay/v1"
}
