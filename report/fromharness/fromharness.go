// Package fromharness builds report data from what package harness
// returns: a replay result's entry from a harness.Verdict, a transcript from
// a harness.Outcome. It keeps package report a leaf that decodes and renders
// results without linking the harness.
package fromharness

import (
	"os"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
)

// ScenarioResult turns one verified scenario, and how long it took, into
// its entry in a replay result.
func ScenarioResult(v *harness.Verdict, elapsed time.Duration) report.ScenarioResult {
	r := report.ScenarioResult{Name: v.Name, Path: v.Path, Status: report.StatusPass, Seconds: elapsed.Seconds(),
		Failures: texts(v.Failures), Golden: v.Golden, Updated: v.Updated}
	if v.Scenario != nil {
		r.Tags = v.Scenario.Tags
	}
	if v.Outcome != nil {
		r.Termination, r.Iterations = string(v.Outcome.Termination), v.Outcome.Iterations
		r.Transcript = Transcript(v.Outcome)
		r.Sandbox = v.Outcome.Sandbox
		if v.Scenario != nil {
			r.Judge = Verdicts(v.Scenario, v.Outcome)
		}
	}
	switch {
	case v.Err != nil:
		r.Status, r.Error = report.StatusError, v.Err.Error()
	case !v.Passed():
		r.Status = report.StatusFail
	}
	for _, f := range r.Failures {
		if diff, ok := report.GoldenDifference(f); ok {
			r.GoldenDifference = diff
		}
	}
	// A run that diverged was not compared with its expectations: none is
	// listed, as if it held.
	if v.Scenario != nil && v.Scenario.Expect != nil && v.Err == nil && (v.Outcome == nil || !v.Outcome.Diverged) {
		r.Expectations = expectations(v.Scenario.Path, v.Failures)
	}
	return r
}

// expectations lists the keys of the expect block of the scenario file at
// path, in file order, each with the failures at it (their key is
// expect.KEY). A key named only by a failure is listed after them.
func expectations(path string, failures []*fileerr.Error) []report.Expectation {
	var keys []string
	if b, err := os.ReadFile(path); err == nil {
		var doc yaml.Node
		if yaml.Unmarshal(b, &doc) == nil && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
			m := doc.Content[0].Content
			for i := 0; i+1 < len(m); i += 2 {
				if m[i].Value == "expect" && m[i+1].Kind == yaml.MappingNode {
					for j := 0; j+1 < len(m[i+1].Content); j += 2 {
						keys = append(keys, m[i+1].Content[j].Value)
					}
				}
			}
		}
	}
	byKey := map[string][]string{}
	for _, f := range failures {
		key, ok := strings.CutPrefix(f.Key, "expect.")
		if !ok {
			continue
		}
		if _, known := byKey[key]; !known && !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
		byKey[key] = append(byKey[key], f.Error())
	}
	out := make([]report.Expectation, 0, len(keys))
	for _, k := range keys {
		out = append(out, report.Expectation{Key: k, Passed: len(byKey[k]) == 0, Messages: byKey[k]})
	}
	return out
}

// texts is the text of each of errs, in order; nil for none.
func texts(errs []*fileerr.Error) []string {
	if errs == nil {
		return nil
	}
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

// Transcript returns the transcript of an outcome, or nil for a nil outcome.
// User messages are taken from the run's conversation: those sent before a
// turn's request are attached to that turn.
func Transcript(o *harness.Outcome) *report.Transcript {
	if o == nil {
		return nil
	}
	t := &report.Transcript{Final: o.Final, TerminationError: o.Error, Turns: make([]report.Turn, 0, len(o.Turns))}
	var users [][]string
	if o.Run != nil {
		t.Tokens = o.Run.Usage
		users = userMessagesByTurn(o.Run.Messages)
	}
	for i, ot := range o.Turns {
		turn := report.Turn{Index: ot.Index, Diff: ot.Diff, ExtractedFrom: ot.Envelope}
		delivered := map[string]bool{}
		for _, a := range ot.Delivered {
			turn.AsyncResults = append(turn.AsyncResults, report.AsyncResult{ID: a.ID, Name: a.Name, Result: a.Result})
			delivered[agent.AsyncResultMessage(a.ID, a.Name, &tools.Result{Content: a.Result}).Content] = true
		}
		if i < len(users) {
			for _, u := range users[i] {
				if !delivered[u] {
					turn.User = append(turn.User, u)
				}
			}
		}
		if ot.Response != nil {
			turn.Content = ot.Response.Message.Content
			turn.FinishReason = string(ot.Response.FinishReason)
		}
		for _, c := range ot.Calls {
			turn.Calls = append(turn.Calls, report.Call{
				ID: c.ID(), Name: c.Name(), Arguments: c.Arguments(), Executed: c.Executed(),
				Repairs: c.Repairs(), Coercions: c.Coercions(), Attempts: c.Attempts(),
				Memoized: c.Memoized(), Async: c.Async(), Failure: string(c.Failure()),
				Result: c.Result(), Effects: c.Effects(),
			})
		}
		t.Turns = append(t.Turns, turn)
	}
	return t
}

// userMessagesByTurn splits the conversation at its assistant messages and
// returns, for each assistant message in order, the user messages that came
// before it and after the previous one.
func userMessagesByTurn(msgs []llm.Message) [][]string {
	var out [][]string
	var pending []string
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			pending = append(pending, m.Content)
		case llm.RoleAssistant:
			out = append(out, pending)
			pending = nil
		}
	}
	return out
}

// Verdicts returns the report's verdict on each expect.judge item of s, from
// o.Judged: the judge's answer and whether the item held, or why there is
// no verdict. Nil when s has no expect.judge item.
func Verdicts(s *scenario.Scenario, o *harness.Outcome) []report.Verdict {
	if s.Expect == nil || len(s.Expect.Judges) == 0 {
		return nil
	}
	out := make([]report.Verdict, len(s.Expect.Judges))
	for i, item := range s.Expect.Judges {
		rv := report.Verdict{Index: i, Rubric: item.Rubric, On: item.On, Threshold: item.Threshold, Problem: "not judged"}
		if i < len(o.Judged) {
			r := o.Judged[i]
			if r.Problem != nil {
				rv.Problem = r.Problem.Error()
			}
			if v := r.Verdict; v != nil {
				rv.Model, rv.Judged, rv.Score, rv.JudgePass, rv.Reason = v.Model, v.Judged, v.Score, v.Pass, v.Reason
				rv.Passed = r.Passed(item)
			}
		}
		out[i] = rv
	}
	return out
}
