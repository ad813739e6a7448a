package harness_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
)

// Verify replays one bundled scenario and checks it against its golden file
// and its expect block.
func ExampleVerify() {
	v := harness.Verify(context.Background(), "../scenarios/files/append-line.yaml", nil)
	fmt.Println(v.Name, v.Passed())
	fmt.Println(v.Outcome.Termination, v.Outcome.Iterations)
	fmt.Println(v.Outcome.Turns[0].Calls[0].Repairs())
	// Output:
	// files/append-line true
	// final_text 3
	// [trailing_comma]
}

// NewChecker registers a check of your own that a scenario calls from
// expect.check; its with: is decoded strictly into the config struct.
func ExampleNewChecker() {
	type minCalls struct {
		N int `yaml:"n" fixture:"required"`
	}
	atLeast := harness.NewChecker("at_least_calls", "the run made at least with.n model calls",
		func(o *harness.Outcome, with minCalls) error {
			if o.Iterations < with.N {
				return fmt.Errorf("made %d model calls, want at least %d", o.Iterations, with.N)
			}
			return nil
		})
	s, err := scenario.Parse([]byte(`format: tapeloop/v1
input: [{role: user, content: "Say hi."}]
tape:
  - response: {content: "hi"}
expect:
  check: {name: at_least_calls, with: {n: 2}}
`), "hi.yaml", "hi")
	if err != nil {
		fmt.Println(err)
		return
	}
	o, err := harness.Run(context.Background(), s, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range harness.Failures(s, o, atLeast) {
		fmt.Println(f.Line, f.Key, errors.Is(f, harness.ErrExpectation))
		fmt.Println(f)
	}
	// Output:
	// 6 expect.check[at_least_calls] true
	// hi.yaml:6: expect.check[at_least_calls]: made 1 model calls, want at least 2
}
