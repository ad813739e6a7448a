package replay

import "github.com/tapeloop/tapeloop/tape"

// RedactVerdict redacts every string v holds, in place: the rubric, the
// model, the judged text, the reason and the request's messages. v must
// own its request (see Verdict.Clone).
func (r *Redactor) RedactVerdict(v *tape.Verdict) {
	v.Rubric = r.Redact(v.Rubric)
	v.Model = r.Redact(v.Model)
	v.Judged = r.Redact(v.Judged)
	v.Reason = r.Redact(v.Reason)
	if v.Request != nil {
		e := tape.Entry{Request: v.Request}
		r.RedactEntry(&e)
	}
}
