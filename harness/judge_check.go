package harness

import (
	"fmt"
	"strconv"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// JudgeResult is the verdict on one expect.judge item.
type JudgeResult struct {
	// Verdict is the judge's verdict, redacted; nil means there is none,
	// and Problem says why.
	Verdict *tape.Verdict
	// Problem says why there is no verdict (a replay's judged text
	// changed, none was recorded), at its place in the scenario file; nil
	// when Verdict is set.
	Problem *fileerr.Error
}

// Passed reports whether the verdict passes the item: with a threshold,
// when the score reaches it (score >= threshold), whatever the judge's own
// pass says; without, when the judge's pass is true. No verdict fails.
func (r JudgeResult) Passed(item scenario.JudgeExpect) bool {
	switch {
	case r.Verdict == nil:
		return false
	case item.Threshold != nil:
		return r.Verdict.Score >= *item.Threshold
	}
	return r.Verdict.Pass
}

// judgeFailures checks every expect.judge item of s against o.Judged: an
// item with no verdict, or whose verdict does not pass it, is a failure of
// the expectation judge[i] naming the item's file and line (or, for a
// verdict whose judged text changed, the verdict's).
func judgeFailures(s *scenario.Scenario, o *Outcome) []*fileerr.Error {
	var out []*fileerr.Error
	for i, item := range s.Expect.Judges {
		key := "judge[" + strconv.Itoa(i) + "]"
		at := "expect." + key
		var r JudgeResult
		if i < len(o.Judged) {
			r = o.Judged[i]
		}
		switch {
		case r.Verdict == nil && r.Problem != nil:
			f := *r.Problem
			f.Kind = &expectationError{key: key, cause: r.Problem.Kind}
			out = append(out, &f)
		case r.Verdict == nil:
			out = append(out, failed(s, item.Line, at, key, nil, "not judged (no verdict was asked for or recorded)"))
		case !r.Passed(item) && item.Threshold != nil:
			out = append(out, failed(s, item.Line, at, key, nil, fmt.Sprintf("the judge (%s) scored %s, below the threshold %s: %s",
				r.Verdict.Model, formatScore(r.Verdict.Score), formatScore(*item.Threshold), clip(r.Verdict.Reason))))
		case !r.Passed(item):
			out = append(out, failed(s, item.Line, at, key, nil, fmt.Sprintf("the judge (%s) failed it (score %s): %s",
				r.Verdict.Model, formatScore(r.Verdict.Score), clip(r.Verdict.Reason))))
		}
	}
	return out
}

func formatScore(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// replayVerdicts sets o.Judged from the verdicts recorded in s's judge:
// section, in a replay: an item's verdict is re-used when the text it
// judges now is the text that was judged (after redaction, as a replay
// compares requests); otherwise, or when none was recorded, the item has
// no verdict and its Problem says how to record one. A recorded verdict no
// item uses goes to o.Unused. The judge is never called. red is the
// replay's redaction policy: it pairs verdicts with items
// (scenario.Scenario.MatchVerdicts) and redacts the judged text, as the
// verdict's was when it was recorded, before it is compared. command names the
// program in hints ("evalrun") and path the scenario file, as the user
// names it where they run command.
func replayVerdicts(s *scenario.Scenario, o *Outcome, red *redact.Redactor, command, path string) {
	if (s.Expect == nil || len(s.Expect.Judges) == 0) && len(s.Verdicts) == 0 {
		return
	}
	rerecord := fmt.Sprintf("`%s record --mode judge --judge-model PROVIDER/MODEL %s`", command, path)
	paired, unpaired := s.MatchVerdicts(red)
	o.Judged = make([]JudgeResult, len(paired))
	for i, j := range paired {
		item := s.Expect.Judges[i]
		if j < 0 {
			o.Judged[i].Problem = &fileerr.Error{File: s.Path, Line: item.Line, Key: fmt.Sprintf("expect.judge[%d]", i),
				Problem: "no verdict recorded for this rubric (a replay never calls the judge): record one with " + rerecord}
			continue
		}
		v := s.Verdicts[j].Clone()
		now := red.Quiet(JudgedText(s, o, item.On))
		if !red.Matches(v.Judged, now) {
			o.Judged[i].Problem = &fileerr.Error{File: s.Path, Line: v.Line, Key: fmt.Sprintf("judge[%d]", j),
				Problem: fmt.Sprintf("the judged text changed: re-record the verdict with %s (the verdict of expect.judge[%d] at line %d judged other text: - recorded, + now)\n%s",
					rerecord, i, item.Line, udiff.Hunks(v.Judged, now))}
			continue
		}
		o.Judged[i].Verdict = &v
	}
	for _, j := range unpaired {
		v := s.Verdicts[j]
		o.Unused = append(o.Unused, &fileerr.Error{File: s.Path, Line: v.Line, Key: fmt.Sprintf("judge[%d]", j),
			Problem: fmt.Sprintf("no expect.judge item uses this recorded verdict (rubric %q, on %s, model %s): remove it, or record the verdicts again with %s",
				clip(v.Rubric), v.On, v.Model, rerecord)})
	}
}
