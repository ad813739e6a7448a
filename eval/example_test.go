package eval_test

import (
	"context"
	"fmt"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/eval"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

// ExampleRun evaluates one scenario against two models, three trials each,
// and scores every trial with the scenario's expect block. The models here
// are stand-ins answering at once (Options.Open); by default Run opens
// "PROVIDER/MODEL" with llm.Open, from the providers main registered.
func ExampleRun() {
	s, err := scenario.Parse([]byte(`format: tapeloop/v1
input: [{role: user, content: "What is 2 + 2? Answer with the number."}]
tape: []
expect:
  termination: final_text
  final: {equals: "4"}
`), "sum.yaml", "sum")
	if err != nil {
		panic(err)
	}
	answers := map[string]string{"stand-in/right": "4", "stand-in/wrong": "5"}
	r, err := eval.Run(context.Background(), []*scenario.Scenario{s}, &eval.Options{
		Models: []string{"stand-in/right", "stand-in/wrong"},
		Trials: 3,
		Clock:  clock.NewVirtual(clock.Epoch),
		Open: func(_ context.Context, name string) (llm.Model, error) {
			return llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
				return &llm.Response{Message: llm.AssistantMessage(answers[name])}, nil
			}), nil
		},
	})
	if err != nil {
		panic(err)
	}
	for _, m := range r.Models {
		fmt.Printf("%s: %d of %d trials passed\n", m.Name, m.Passed, m.Trials)
	}
	for _, row := range r.Scenarios {
		fmt.Printf("%s on %s: %s, failed %v\n", row.Name, row.Model, row.Class, row.Failures)
	}
	// Output:
	// stand-in/right: 3 of 3 trials passed
	// stand-in/wrong: 0 of 3 trials passed
	// sum on stand-in/right: pass, failed map[]
	// sum on stand-in/wrong: fail, failed map[final:3]
}
