package harness

import (
	"fmt"
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

// findCall returns the call ref names (an ID, or a position written by
// CallAt), or nil and what a matcher's message says instead: that the
// scenario has no such call (listing the ids it has), or that a reused id is
// ambiguous.
func findCall(run *agent.RunResult, ref string) (*agent.CallRecord, string) {
	c, problem, ambiguous := locateCall(run, ref)
	if c != nil || ambiguous {
		return c, problem
	}
	if _, _, ok := parseCallAt(ref); ok {
		return nil, strings.Replace(problem, "found no call", "the scenario has no call", 1)
	}
	return nil, fmt.Sprintf("the scenario has no call %s (%s)", ref, callIDs(run))
}

// times renders a count of times: "1 time", "2 times".
func times(n int) string {
	if n == 1 {
		return "1 time"
	}
	return strconv.Itoa(n) + " times"
}
