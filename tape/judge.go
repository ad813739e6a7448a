package tape

import (
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
)

// Verdict is one recorded judgement of a model-graded rubric (a scenario's
// expect.judge item): what the judge model was asked about which text, and
// what it answered. A scenario's (or tape's) `judge:` section holds one per
// item, so that a replay re-uses it instead of calling the judge again.
type Verdict struct {
	// Rubric is the rubric the text was judged against, as the item wrote it.
	Rubric string
	// Model is the judge model, "PROVIDER/MODEL".
	Model string
	// On is what was judged: "final" (the final text) or "transcript".
	On string
	// Judged is the text that was judged, redacted. A replay re-uses the
	// verdict only when the text it would judge is this one (redact.Matches).
	Judged string
	// Request is the request sent to the judge, redacted; nil means not
	// recorded.
	Request *RequestSummary
	// Score is the judge's score, from 0 to 1.
	Score float64
	// Pass is the judge's own pass/fail.
	Pass bool
	// Reason is the judge's reason, redacted.
	Reason string
	// Line is the verdict's line in its file; 0 when not from a file. It is
	// not encoded.
	Line int
}

var verdictKeys = []string{"rubric", "model", "on", "judged", "score", "pass", "reason", "request"}

// DecodeVerdicts decodes the `judge:` sequence node of a scenario or tape
// file, with the same strictness as DecodeEntries: every key is required
// but request; score is a number from 0 to 1; on is final or transcript.
// Errors wrap ErrFormat and name the file, line and key.
func DecodeVerdicts(filename string, node *yaml.Node) ([]Verdict, error) {
	vs, err := newDecoder(filename).verdicts(node)
	return vs, formatError(err)
}

func (d *decoder) verdicts(n *yaml.Node) ([]Verdict, error) {
	if err := d.Want(n, "judge", yaml.SequenceNode); err != nil {
		return nil, err
	}
	out := make([]Verdict, 0, len(n.Content))
	for i, c := range n.Content {
		path := yamlx.Index("judge", i)
		v := Verdict{Line: c.Line}
		seen, err := d.Fields(c, path, verdictKeys, func(key string, x *yaml.Node) error {
			p := yamlx.Join(path, key)
			var err error
			switch key {
			case "rubric":
				v.Rubric, err = d.Str(x, p)
			case "model":
				v.Model, err = d.Str(x, p)
			case "on":
				v.On, err = d.Enum(x, p, "final", "transcript")
			case "judged":
				v.Judged, err = d.Str(x, p)
			case "score":
				v.Score, err = d.Unit(x, p)
			case "pass":
				v.Pass, err = d.Bool(x, p)
			case "reason":
				v.Reason, err = d.Str(x, p)
			case "request":
				v.Request, err = d.request(x, p)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, k := range verdictKeys[:7] {
			if !seen.Has(k) {
				return nil, d.Errf(c, path, "missing required key %q", k)
			}
		}
		out = append(out, v)
	}
	return out, nil
}

// EncodeVerdicts returns the canonical `judge:` sequence node of vs, for a
// scenario or tape file. A verdict's request with an invalid role is an
// error wrapping ErrFormat.
func EncodeVerdicts(vs []Verdict) (*yaml.Node, error) {
	seq := yamlx.Seq()
	for i, v := range vs {
		n := yamlx.Map()
		yamlx.Add(n, "rubric", yamlx.Text(v.Rubric))
		yamlx.Add(n, "model", yamlx.Text(v.Model))
		yamlx.Add(n, "on", yamlx.Text(v.On))
		yamlx.Add(n, "judged", yamlx.Text(v.Judged))
		yamlx.Add(n, "score", &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatFloat(v.Score, 'g', -1, 64)})
		yamlx.Add(n, "pass", yamlx.Bool(v.Pass))
		yamlx.Add(n, "reason", yamlx.Text(v.Reason))
		if v.Request != nil {
			r, err := encodeRequest(v.Request, yamlx.Join(yamlx.Index("judge", i), "request"), true)
			if err != nil {
				return nil, err
			}
			yamlx.Add(n, "request", r)
		}
		seq.Content = append(seq.Content, n)
	}
	return seq, nil
}

// Clone returns a deep copy of v.
func (v Verdict) Clone() Verdict {
	v.Request = v.Request.Clone()
	return v
}
