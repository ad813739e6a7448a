package harness

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/scenario"
)

// ErrExpectation is what the failure of an expectation unwraps to
// (Failures).
var ErrExpectation = errors.New("an expectation did not hold")

// expectationError is the kind of a failed expectation: it unwraps to
// ErrExpectation and to its cause (a check's error), and names the
// expectation as reports count failures by it (Expectation).
type expectationError struct {
	key   string
	cause error
}

func (e *expectationError) Error() string   { return "expect." + e.key + ": " + ErrExpectation.Error() }
func (e *expectationError) Unwrap() []error { return []error{ErrExpectation, e.cause} }

// Expectation is the key under expect that failed, as reports count
// failures by it: "final", "tool_calls", ..., with the file for files
// ("files[notes.txt]") and the index for said and judge ("said[0]").
func (e *expectationError) Expectation() string { return e.key }

// failed is the failure of the expectation key (see
// expectationError.Expectation) at line of s's file, under the key at (as
// the message names it: "expect.files"), caused by cause (nil: none).
func failed(s *scenario.Scenario, line int, at, key string, cause error, problem string) *fileerr.Error {
	return &fileerr.Error{File: s.Path, Line: line, Key: at, Problem: problem, Kind: &expectationError{key: key, cause: cause}}
}

// Failures checks the outcome o against the expect block of the scenario s
// and returns one *fileerr.Error per failed expectation, each naming the
// file, line and key of the expectation and saying what was expected and
// what was found (nil when there are no expectations or all hold). Each
// unwraps to ErrExpectation and to an error whose method Expectation()
// string names the expectation as reports count it ("files[notes.txt]",
// "said[0]"; reach it with errors.As and an interface); a check's failure
// also unwraps to the check's error. For a single error, errors.Join them.
// The
// expect.check items come next to last, each calling the check of checks it
// names, and the expect.judge items last, each against its verdict in
// o.Judged (none fails it).
func Failures(s *scenario.Scenario, o *Outcome, checks ...*Checker) []*fileerr.Error {
	e := s.Expect
	if e == nil {
		return nil
	}
	var out []*fileerr.Error
	failAs := func(key, lineKey, format string, args ...any) {
		out = append(out, failed(s, e.Line(lineKey), "expect."+lineKey, key, nil, fmt.Sprintf(format, args...)))
	}
	fail := func(key, format string, args ...any) { failAs(key, key, format, args...) }
	if e.Termination != nil && *e.Termination != o.Termination {
		msg := ""
		if o.Error != "" {
			msg = " (" + o.Error + ")"
		}
		fail("termination", "expected %s, found %s%s", *e.Termination, o.Termination, msg)
	}
	if e.ModelRetries != nil && *e.ModelRetries != len(o.ModelRetries) {
		fail("model_retries", "expected %d failed model %s retried, found %d", *e.ModelRetries, plural(*e.ModelRetries, "call", "calls"), len(o.ModelRetries))
	}
	if e.Iterations != nil && *e.Iterations != o.Iterations {
		fail("iterations", "expected %d model calls, found %d", *e.Iterations, o.Iterations)
	}
	if e.ToolCalls != nil {
		if got := calledTools(o.Run); !slices.Equal(got, *e.ToolCalls) {
			fail("tool_calls", "expected %s, found %s", list(*e.ToolCalls), list(got))
		}
	}
	if e.Calls != nil {
		if diff := checkCalls(e.Calls, o.Run); diff != "" {
			how := "match: " + e.Calls.Match
			if e.Calls.Only != nil {
				how += "; only: " + list(e.Calls.Only)
			}
			if e.Calls.SkipFailed {
				how += "; failed: false"
			}
			fail("calls", "the calls made do not fit the list (%s; > marks the first mismatch):\n%s", how, diff)
		}
	}
	out = append(out, checkSaid(s, e.Said, o.Run)...)
	if e.Retries != nil {
		got := retriesByTool(o.Run)
		for _, name := range slices.Sorted(maps.Keys(e.Retries)) {
			if got[name] != e.Retries[name] {
				fail("retries", "expected %s to be retried %s, found %d", name, times(e.Retries[name]), got[name])
			}
		}
	}
	if e.Repairs != nil {
		for _, id := range slices.Sorted(maps.Keys(e.Repairs)) {
			c, problem, _ := locateCall(o.Run, id)
			switch {
			case c == nil:
				fail("repairs", "expected call %s to be repaired with %s, %s", id, list(e.Repairs[id]), problem)
			case !slices.Equal(c.Repairs, e.Repairs[id]):
				fail("repairs", "expected call %s to be repaired with %s, found %s", id, list(e.Repairs[id]), list(c.Repairs))
			}
		}
	}
	if e.Errors != nil {
		for _, id := range slices.Sorted(maps.Keys(e.Errors)) {
			c, problem, _ := locateCall(o.Run, id)
			switch {
			case c == nil:
				fail("errors", "expected call %s to fail with %s, %s", id, e.Errors[id], problem)
			case !c.Result.Failed():
				fail("errors", "expected call %s to fail with %s, found a success: %q", id, e.Errors[id], clip(c.Result.Content))
			case c.Result.Kind() != e.Errors[id]:
				fail("errors", "expected call %s to fail with %s, found %s: %q", id, e.Errors[id], c.Result.Kind(), clip(c.Result.Content))
			}
		}
	}
	if f := e.Final; f != nil {
		switch {
		case f.Equals != nil && o.Final != *f.Equals:
			fail("final", "expected the final text to equal %q, found %q", *f.Equals, o.Final)
		case f.Contains != nil && !strings.Contains(o.Final, *f.Contains):
			fail("final", "expected the final text to contain %q, found %q", *f.Contains, o.Final)
		case f.Matches != nil && !f.Matches.MatchString(o.Final):
			fail("final", "expected the final text to match %q, found %q", f.Matches.String(), o.Final)
		}
	}
	if e.Files != nil {
		files := map[string]string{}
		for _, f := range o.Workspace {
			files[f.Path] = f.Content
		}
		for _, fe := range e.Files {
			got, exists := files[fe.Path]
			key := "files[" + fe.Path + "]"
			switch {
			case fe.Content == nil && exists:
				failAs(key, "files", "expected %s not to exist, found it with %q", fe.Path, clip(got))
			case fe.Content != nil && !exists:
				failAs(key, "files", "expected %s to hold %q, found no such file", fe.Path, clip(*fe.Content))
			case fe.Content != nil && got != *fe.Content:
				failAs(key, "files", "expected %s to hold %q, found %q", fe.Path, *fe.Content, got)
			}
		}
	}
	if e.State != nil {
		for _, msg := range checkState(e.State, o.State) {
			fail("state", "%s", msg)
		}
	}
	if e.Cache != nil {
		if msg := checkCache(e.Cache, o.Cache); msg != "" {
			fail("cache", "%s", msg)
		}
	}
	out = append(out, checkFailures(s, o, checks)...)
	out = append(out, judgeFailures(s, o)...)
	return out
}

// calledTools returns the names of every call the model made, structured or
// extracted from text, in the order it emitted them, across all turns.
func calledTools(run *agent.RunResult) []string {
	names := []string{}
	if run == nil {
		return names
	}
	for _, t := range run.Turns {
		for _, c := range t.Calls {
			names = append(names, c.Call.Name)
		}
	}
	return names
}

// retriesByTool returns the retry attempts after the first, summed per tool name.
func retriesByTool(run *agent.RunResult) map[string]int {
	out := map[string]int{}
	if run == nil {
		return out
	}
	for _, t := range run.Turns {
		for _, c := range t.Calls {
			if n := c.Retries(); n > 0 {
				out[c.Call.Name] += n
			}
		}
	}
	return out
}

func list(items []string) string { return "[" + strings.Join(items, ", ") + "]" }

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
