package harness

import (
	"fmt"
	"strings"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/scenario"
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

// locateCall finds the call ref names: a position (scenario.CallAt) or an ID. It
// returns nil and the reason when there is no such call or when the ID names
// more than one call (a reused ID: then only a position is unambiguous);
// ambiguous tells the two apart.
func locateCall(run *agent.RunResult, ref string) (c *agent.CallRecord, problem string, ambiguous bool) {
	if run == nil {
		return nil, "the run has no record", false
	}
	if turn, call, ok := scenario.ParseCallAt(ref); ok {
		for _, t := range run.Turns {
			if t.Index == turn {
				if call >= 1 && call <= len(t.Calls) {
					return t.Calls[call-1], "", false
				}
				return nil, fmt.Sprintf("found no call %s: turn %d made %d %s", ref, turn, len(t.Calls), plural(len(t.Calls), "call", "calls")), false
			}
		}
		return nil, fmt.Sprintf("found no call %s: the run has %d %s", ref, len(run.Turns), plural(len(run.Turns), "turn", "turns")), false
	}
	var found *agent.CallRecord
	var at []string
	for _, t := range run.Turns {
		for i, c := range t.Calls {
			if c.Call.ID == ref {
				found = c
				at = append(at, scenario.CallAt(t.Index, i+1))
			}
		}
	}
	switch len(at) {
	case 0:
		return nil, "found no call " + ref, false
	case 1:
		return found, "", false
	}
	return nil, fmt.Sprintf("the id %s names %d calls (%s); name one by position, as %s", ref, len(at), strings.Join(at, ", "), at[0]), true
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// findCall returns the call ref names (an ID, or a position written by
// scenario.CallAt), or nil and what a message about it says instead: that the
// scenario has no such call (listing the ids it has), that a reused id is
// ambiguous, or that the run has no record (run nil).
func findCall(run *agent.RunResult, ref string) (*agent.CallRecord, string) {
	c, problem, ambiguous := locateCall(run, ref)
	if c != nil || ambiguous || run == nil {
		return c, problem
	}
	if _, _, ok := scenario.ParseCallAt(ref); ok {
		return nil, strings.Replace(problem, "found no call", "the scenario has no call", 1)
	}
	return nil, fmt.Sprintf("the scenario has no call %s (%s)", ref, callIDs(run))
}
