package harness

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/agent"
)

// outcomeOf returns the *Outcome a matcher was given, or the error the matcher
// returns for misuse (naming the matcher).
func outcomeOf(matcher string, actual any) (*Outcome, error) {
	o, ok := actual.(*Outcome)
	if !ok || o == nil {
		return nil, fmt.Errorf("%s expects a non-nil *harness.Outcome, got %T", matcher, actual)
	}
	return o, nil
}

// runOf returns the outcome's run record; matchers about calls need it, and an
// Outcome built by hand (or decoded from a golden) may lack it.
func runOf(matcher string, actual any) (*Outcome, *agent.RunResult, error) {
	o, err := outcomeOf(matcher, actual)
	if err != nil {
		return nil, nil, err
	}
	if o.Run == nil {
		return nil, nil, fmt.Errorf("%s needs the run record, but the outcome of scenario %s has none (Outcome.Run is nil)", matcher, o.Name)
	}
	return o, o.Run, nil
}

// callIDs lists the ids of every call of the run, in order, for messages
// about a call that is not there.
func callIDs(run *agent.RunResult) string {
	var ids []string
	for _, t := range run.Turns {
		for _, c := range t.Calls {
			ids = append(ids, c.Call.ID)
		}
	}
	if len(ids) == 0 {
		return "it made no calls"
	}
	return "its calls: " + strings.Join(ids, ", ")
}

// findCall returns the call with the given id, or nil.
func findCall(run *agent.RunResult, id string) *agent.CallRecord {
	for _, t := range run.Turns {
		if i := slices.IndexFunc(t.Calls, func(c *agent.CallRecord) bool { return c.Call.ID == id }); i >= 0 {
			return t.Calls[i]
		}
	}
	return nil
}

// times renders a count of times: "1 time", "2 times".
func times(n int) string {
	if n == 1 {
		return "1 time"
	}
	return strconv.Itoa(n) + " times"
}
