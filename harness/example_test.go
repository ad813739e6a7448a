package harness_test

import (
	"context"
	"fmt"

	"github.com/tapeloop/tapeloop/harness"
)

// Verify replays one bundled scenario and checks it against its golden file
// and its expect block.
func ExampleVerify() {
	v := harness.Verify(context.Background(), "../scenarios/files/append-line.yaml", nil)
	fmt.Println(v.Name, v.Passed())
	fmt.Println(v.Outcome.Termination, v.Outcome.Iterations)
	fmt.Println(v.Outcome.Turns[0].Calls[0].Repairs)
	// Output:
	// files/append-line true
	// final_text 3
	// [trailing_comma]
}
