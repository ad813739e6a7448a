package harness

import (
	"fmt"
	"strings"

	"github.com/tapeloop/tapeloop/agent"
)

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

// FindCall returns the call ref names (an ID, or a position written by
// CallAt), or nil and what a message about it says instead: that the
// scenario has no such call (listing the ids it has), or that a reused id is
// ambiguous.
func FindCall(run *agent.RunResult, ref string) (*agent.CallRecord, string) {
	c, problem, ambiguous := locateCall(run, ref)
	if c != nil || ambiguous {
		return c, problem
	}
	if _, _, ok := parseCallAt(ref); ok {
		return nil, strings.Replace(problem, "found no call", "the scenario has no call", 1)
	}
	return nil, fmt.Sprintf("the scenario has no call %s (%s)", ref, callIDs(run))
}
