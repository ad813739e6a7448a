package scenario

import (
	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
)

// What an expect.judge item judges (JudgeExpect.On).
const (
	// JudgeFinal judges the run's final text.
	JudgeFinal = "final"
	// JudgeTranscript judges the whole conversation: the input, each
	// user turn, each answer, each call and its result.
	JudgeTranscript = "transcript"
)

// JudgeExpect is one item of expect.judge: a rubric a judge model grades
// the run against. A live run (eval, record) asks the judge; a replay
// re-uses the verdict recorded in the file's `judge:` section.
type JudgeExpect struct {
	// Rubric is what the judged text must meet, in the author's words.
	Rubric string
	// Model is the judge model, "PROVIDER/MODEL"; empty means the default
	// the command is given (--judge-model).
	Model string
	// Threshold, when set, is the score (0..1) the verdict must reach:
	// the item passes when score >= Threshold, whatever the judge's own
	// pass says. Nil means the judge's pass decides.
	Threshold *float64
	// On is JudgeFinal (the default) or JudgeTranscript.
	On string
	// Line is the item's line in the file; 0 when unknown.
	Line int
}

var judgeKeys = []string{"rubric", "model", "threshold", "on"}

// decodeJudges reads expect.judge: one {rubric, model, threshold, on}
// mapping or a non-empty list of them.
func decodeJudges(d *yamlx.Decoder, n *yaml.Node, path string) ([]JudgeExpect, error) {
	items, paths, err := mappings(d, n, path, "{rubric: TEXT, model: PROVIDER/MODEL, threshold: 0..1, on: final|transcript}")
	if err != nil {
		return nil, err
	}
	var out []JudgeExpect
	for i, c := range items {
		p := paths[i]
		je := JudgeExpect{On: JudgeFinal, Line: c.Line}
		seen, err := d.Fields(c, p, judgeKeys, func(key string, v *yaml.Node) error {
			kp := yamlx.Join(p, key)
			var err error
			switch key {
			case "rubric":
				je.Rubric, err = d.Str(v, kp)
				if err == nil && je.Rubric == "" {
					err = d.Errf(v, kp, "empty (want what the judged text must meet)")
				}
			case "model":
				je.Model, err = d.Str(v, kp)
				if err == nil {
					if _, _, perr := llm.ParseModelName(je.Model); perr != nil {
						err = d.Errf(v, kp, "%v", perr)
					}
				}
			case "threshold":
				var t float64
				t, err = d.Unit(v, kp)
				je.Threshold = &t
			case "on":
				je.On, err = d.Enum(v, kp, JudgeFinal, JudgeTranscript)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if !seen.Has("rubric") {
			return nil, d.Errf(c, p, "missing key \"rubric\" (what the judged text must meet)")
		}
		out = append(out, je)
	}
	return out, nil
}

// MatchVerdicts pairs each expect.judge item of s with the verdict of its
// `judge:` section recorded for it: the first verdict not yet paired with
// the same rubric and on, and the same model when the item names one. It
// returns, per item, the index of its verdict in s.Verdicts (-1 when none
// was recorded for it), and the indexes of the verdicts paired with no
// item, in order. A rubric is compared as replay compares text, with r,
// the command's redaction policy (redact.Redactor.Matches): a recorded
// [REDACTED] stands for one secret, or for a value r knows whatever
// characters it holds. A nil r is redact.Matches only.
func (s *Scenario) MatchVerdicts(r *redact.Redactor) (paired []int, unpaired []int) {
	var items []JudgeExpect
	if s.Expect != nil {
		items = s.Expect.Judges
	}
	used := make([]bool, len(s.Verdicts))
	paired = make([]int, len(items))
	for i, item := range items {
		paired[i] = -1
		for j, v := range s.Verdicts {
			if !used[j] && v.On == item.On && (item.Model == "" || v.Model == item.Model) && r.Matches(v.Rubric, item.Rubric) {
				used[j], paired[i] = true, j
				break
			}
		}
	}
	for j, u := range used {
		if !u {
			unpaired = append(unpaired, j)
		}
	}
	return paired, unpaired
}
