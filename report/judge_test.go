package report

import (
	"bytes"
	"encoding/json"
	"html"
	"strings"
	"testing"
)

// TestHTMLShowsVerdicts: an eval trial and a replay show each judge
// verdict (pass or fail, score, threshold or the judge's own pass, model,
// reason, the judged text, escaped) beside the transcript's final answer,
// and a verdict that could not be had says why.
func TestHTMLShowsVerdicts(t *testing.T) {
	threshold := 0.8
	verdicts := []Verdict{
		{Index: 0, Rubric: "apologises", On: "final", Model: "openai/judge", Judged: "Sorry. " + hostile, Score: 0.9, JudgePass: true, Threshold: &threshold, Passed: true, Reason: "it apologises " + hostile},
		{Index: 1, Rubric: "names the order", On: "transcript", Model: "openai/judge", Judged: "user: hi", Score: 0.2, Reason: "no order named"},
		{Index: 2, Rubric: "is brief", On: "final", Problem: "x.yaml:9: judge[2]: the judged text changed: re-record the verdict"},
	}
	e := sampleEval(t)
	e.Scenarios[0].TrialsDetail[0].Judge = verdicts
	r := suiteReplay(t, nil)
	r.Scenarios[1].Judge = verdicts
	for name, write := range map[string]func(*bytes.Buffer) error{
		"eval":   func(b *bytes.Buffer) error { return e.WriteHTML(b) },
		"replay": func(b *bytes.Buffer) error { return r.WriteHTML(b) },
	} {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if strings.Contains(out, "<script>window.pwned") {
			t.Fatalf("%s: the hostile string reached the page as markup", name)
		}
		for _, want := range []string{
			`<span class="who">final</span>`,
			`<div class="judge"><div class="turn-h">judge</div><div class="call verdict"><div class="call-h"><span class="badge st-pass">pass</span> <code>judge[0]</code> apologises</div>`,
			`<dd>score 0.9 · threshold 0.8 · openai/judge</dd><dt>reason</dt><dd><pre>it apologises ` + html.EscapeString(hostile),
			`<dt>judged</dt><dd><pre class="result">Sorry. ` + html.EscapeString(hostile),
			`<div class="call verdict failed"><div class="call-h"><span class="badge st-fail">fail</span> <code>judge[1]</code> names the order</div>`,
			`<dd>score 0.2 · the judge says fail · openai/judge</dd>`, `<span class="note">the transcript</span>`,
			`<code>judge[2]</code> is brief</div>
<pre class="problem">x.yaml:9: judge[2]: the judged text changed: re-record the verdict</pre>`,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the page lacks %s", name, want)
			}
		}
		// The verdicts come after the final answer they judged.
		if f, j := strings.Index(out, `<span class="who">final</span>`), strings.Index(out, `<div class="judge">`); f < 0 || j < f {
			t.Errorf("%s: the verdicts are not after the final answer", name)
		}
	}
	// JSON: the documented fields.
	b, err := json.Marshal(verdicts[0])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"index":0,"rubric":"apologises","on":"final","model":"openai/judge","judged":` + jsonString("Sorry. "+hostile) +
		`,"score":0.9,"judge_pass":true,"reason":` + jsonString("it apologises "+hostile) + `,"threshold":0.8,"passed":true}`
	if string(b) != want {
		t.Errorf("JSON %s\nwant %s", b, want)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
