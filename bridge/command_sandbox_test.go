package bridge_test

import (
	"context"
	"fmt"
	"os"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
)

// parentEnv, set to a scenario's path, makes the test binary run that
// command scenario and nothing else (runParent): a tapeloop process for a
// test to kill.
const parentEnv = "TAPELOOP_BRIDGE_TEST_PARENT"

// runParent runs the command scenario at path against notesScript, as
// evalrun would, and returns the exit code.
func runParent(path string) int {
	s, err := scenario.Load(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	o, err := bridge.Runner(bridge.Command(s), nil)(context.Background(), s, &harness.RunOptions{Model: notesScript()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Println(o.Termination, o.Final)
	return 0
}
