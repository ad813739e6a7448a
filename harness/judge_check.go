package harness

import (
	"fmt"
	"strconv"

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
	// changed, none was recorded); empty when Verdict is set.
	Problem string
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
// item with no verdict, or whose verdict does not pass it, is a Failure
// under the key judge[i] naming the item's file and line.
func judgeFailures(s *scenario.Scenario, o *Outcome) []Failure {
	var out []Failure
	for i, item := range s.Expect.Judges {
		key := "judge[" + strconv.Itoa(i) + "]"
		at := fmt.Sprintf("%s: expect.%s", s.At(item.Line), key)
		var r JudgeResult
		if i < len(o.Judged) {
			r = o.Judged[i]
		}
		switch {
		case r.Verdict == nil && r.Problem != "":
			out = append(out, Failure{Key: key, Message: r.Problem})
		case r.Verdict == nil:
			out = append(out, Failure{Key: key, Message: at + ": not judged (no verdict was asked for or recorded)"})
		case !r.Passed(item) && item.Threshold != nil:
			out = append(out, Failure{Key: key, Message: fmt.Sprintf("%s: the judge (%s) scored %s, below the threshold %s: %s",
				at, r.Verdict.Model, formatScore(r.Verdict.Score), formatScore(*item.Threshold), clip(r.Verdict.Reason))})
		case !r.Passed(item):
			out = append(out, Failure{Key: key, Message: fmt.Sprintf("%s: the judge (%s) failed it (score %s): %s",
				at, r.Verdict.Model, formatScore(r.Verdict.Score), clip(r.Verdict.Reason))})
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
// item uses goes to o.Unused. The judge is never called. red redacts the
// judged text as the verdict's was when it was recorded. command names the
// program in hints ("evalrun") and path the scenario file, as the user
// names it where they run command.
func replayVerdicts(s *scenario.Scenario, o *Outcome, red *redact.Redactor, command, path string) {
	if (s.Expect == nil || len(s.Expect.Judges) == 0) && len(s.Verdicts) == 0 {
		return
	}
	rerecord := fmt.Sprintf("`%s record --mode judge --judge-model PROVIDER/MODEL %s`", command, path)
	paired, unpaired := s.MatchVerdicts()
	o.Judged = make([]JudgeResult, len(paired))
	for i, j := range paired {
		item := s.Expect.Judges[i]
		at := fmt.Sprintf("%s: expect.judge[%d]", s.At(item.Line), i)
		if j < 0 {
			o.Judged[i].Problem = fmt.Sprintf("%s: no verdict recorded for this rubric (a replay never calls the judge): record one with %s", at, rerecord)
			continue
		}
		v := s.Verdicts[j].Clone()
		now := red.Quiet(JudgedText(s, o, item.On))
		if !redact.Matches(v.Judged, now) {
			o.Judged[i].Problem = fmt.Sprintf("%s: judge[%d]: the judged text changed: re-record the verdict with %s (the verdict of expect.judge[%d] at line %d judged other text: - recorded, + now)\n%s",
				s.At(v.Line), j, rerecord, i, item.Line, udiff.Hunks(v.Judged, now))
			continue
		}
		o.Judged[i].Verdict = &v
	}
	for _, j := range unpaired {
		v := s.Verdicts[j]
		o.Unused = append(o.Unused, fmt.Sprintf("%s: judge[%d]: no expect.judge item uses this recorded verdict (rubric %q, on %s, model %s): remove it, or record the verdicts again with %s",
			s.At(v.Line), j, clip(v.Rubric), v.On, v.Model, rerecord))
	}
}
