package ginkgoharness

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/harness"
)

// outcomeOf returns the *Outcome a matcher was given, or the error the matcher
// returns for misuse (naming the matcher).
func outcomeOf(matcher string, actual any) (*harness.Outcome, error) {
	o, ok := actual.(*harness.Outcome)
	if !ok || o == nil {
		return nil, fmt.Errorf("%s expects a non-nil *harness.Outcome, got %T", matcher, actual)
	}
	return o, nil
}

// runOf returns the outcome's run record; matchers about calls need it, and an
// Outcome built by hand (or decoded from a golden) may lack it.
func runOf(matcher string, actual any) (*harness.Outcome, *agent.RunResult, error) {
	o, err := outcomeOf(matcher, actual)
	if err != nil {
		return nil, nil, err
	}
	if o.Run == nil {
		return nil, nil, fmt.Errorf("%s needs the run record, but the outcome of scenario %s has none (Outcome.Run is nil)", matcher, o.Name)
	}
	return o, o.Run, nil
}

// list renders items as "[a, b]".
func list(items []string) string { return "[" + strings.Join(items, ", ") + "]" }

// clip shortens s to 200 bytes for a message.
func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// times renders a count of times: "1 time", "2 times".
func times(n int) string {
	if n == 1 {
		return "1 time"
	}
	return strconv.Itoa(n) + " times"
}
