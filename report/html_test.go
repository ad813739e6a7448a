package report

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestHTMLEscapesModelOutput(t *testing.T) {
	r := suiteReplay(t, nil)
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "<script>window.pwned") || strings.Contains(out, "<img") {
		t.Fatal("the hostile string reached the page as markup")
	}
	if n := strings.Count(out, html.EscapeString("<script>window.pwned=1;")); n < 3 {
		t.Errorf("the hostile string appears escaped %d times, want it in the model text, the call and the result (at least 3)", n)
	}
	if strings.Count(out, "<script>") != 1 {
		t.Errorf("the page has %d <script> elements, want only its own", strings.Count(out, "<script>"))
	}
	for _, want := range []string{
		`<b id="count-pass">1</b>`, `<b id="count-fail">1</b>`, `<b id="count-error">0</b>`,
		`<span class="d-del">-final: It was in.</span>`, `<span class="d-add">&#43;final: It is in.</span>`,
		`<span class="b repair">repair: trailing_comma</span>`,
		`data-tags=" hostile files "`,
		`<script type="text/html" class="lazy"><div class="body">`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	// Each row's lazy details are the raw text of a <script type="text/html">:
	// nothing in them may end that element early or put the parser into its
	// escaped script states.
	const lazyOpen = `<script type="text/html" class="lazy">`
	if n := strings.Count(out, lazyOpen); n != 1 {
		t.Errorf("%d rows with lazy details, want 1 (the passing row; the failed one starts open)", n)
	}
	for _, part := range strings.Split(out, lazyOpen)[1:] {
		body, _, _ := strings.Cut(part, "</script>")
		for _, banned := range []string{"<!--", "<script", "</script"} {
			if strings.Contains(strings.ToLower(body), banned) {
				t.Errorf("lazy details contain %q", banned)
			}
		}
	}
	for _, banned := range []string{"http://", "https://", "@import", "url("} {
		if strings.Contains(out, banned) {
			t.Errorf("the page refers to something outside itself: %q", banned)
		}
	}
}

func TestDiffLines(t *testing.T) {
	got := diffLines("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same\n")
	want := []diffLine{{"file", "--- a/x"}, {"file", "+++ b/x"}, {"hunk", "@@ -1 +1 @@"}, {"del", "-old"}, {"add", "+new"}, {"ctx", " same"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// largeReplay returns a replay result of n scenarios made from the fixture
// suite's two, every other one failing.
func largeReplay(t testing.TB, n int) *Replay {
	base := suiteReplay(t, nil)
	var all []ScenarioResult
	for i := range n {
		s := base.Scenarios[i%2]
		s.Name = fmt.Sprintf("group%02d/%s-%04d", i%37, s.Name, i)
		s.Path = "scenarios/" + s.Name + ".yaml"
		s.Tags = append([]string{fmt.Sprintf("t%d", i%7)}, s.Tags...)
		all = append(all, s)
	}
	return NewReplay(all, nil)
}

func BenchmarkWriteHTML1000(b *testing.B) {
	r := largeReplay(b, 1000)
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := r.WriteHTML(&buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len())/1e6, "MB/page")
}

// TestReplayHTMLFailuresFirstNoPassAtK: a replay's page lists its failing
// scenario before its passing one whatever their paths, and has no pass@k or
// pass^k (a tape has no trials).
func TestReplayHTMLFailuresFirstNoPassAtK(t *testing.T) {
	var buf bytes.Buffer
	if err := suiteReplay(t, nil).WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, banned := range []string{"pass@k", "pass^k", `class="k"`} {
		if strings.Contains(out, banned) {
			t.Errorf("the replay page shows %s", banned)
		}
	}
	var rows []string
	for _, m := range regexp.MustCompile(`<details class="row"(?: open)? id="(s\d+)" data-status="(\w+)"`).FindAllStringSubmatch(out, -1) {
		rows = append(rows, m[1]+" "+m[2])
	}
	if got := strings.Join(rows, ", "); got != "s1 fail, s2 pass" {
		t.Errorf("rows %s; want s1 fail, s2 pass", got)
	}
}

// TestReplayHTMLDivergenceOnce: a divergence from the tape is quoted by the
// failure, the termination expectation and the transcript; the page shows
// its diff once and refers to it elsewhere.
func TestReplayHTMLDivergenceOnce(t *testing.T) {
	div := "replay: x.yaml: request 2 differs from tape[1] at line 9 (- tape, + run):\n-  content: hello\n+  content: goodbye\n"
	r := &Replay{Format: ReplayFormat, Scenarios: []ScenarioResult{{
		Name: "x", Path: "x.yaml", Status: StatusFail, Termination: "model_error",
		Failures:     []string{"x.yaml: the run diverged from the tape: " + div, "x.yaml:12: expect.termination: expected final_text, found model_error (" + div + ")"},
		Expectations: []Expectation{{Key: "termination", Messages: []string{"x.yaml:12: expect.termination: expected final_text, found model_error (" + div + ")"}}},
		Transcript:   &Transcript{TerminationError: div},
	}}}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if n := strings.Count(out, "content: hello"); n != 1 {
		t.Errorf("the divergence diff appears %d times; want once", n)
	}
	if n := strings.Count(out, divergenceOnce); n != 2 {
		t.Errorf("%d references to the divergence shown above; want 2 (the expectation, the transcript)", n)
	}
	// The cause is on the row itself, visible before it is opened: the
	// divergence's first line, without the file the row names.
	summary := regexp.MustCompile(`(?s)<summary>.*?</summary>`).FindString(out)
	if want := `<span class="reason">the run diverged from the tape: replay: x.yaml: request 2 differs from tape[1] at line 9 (- tape, &#43; run):</span>`; !strings.Contains(summary, want) {
		t.Errorf("the row's summary lacks its cause %s:\n%s", want, summary)
	}
	if r.Scenarios[0].Transcript.TerminationError != div {
		t.Error("rendering changed the result's transcript")
	}
}

// rowHTML is the markup of the row named name, from its <details> to the
// end of its body.
func rowHTML(t *testing.T, page, name string) string {
	t.Helper()
	start := strings.Index(page, `data-name="`+name+`"`)
	if start < 0 {
		t.Fatalf("no row %s in the page", name)
	}
	start = strings.LastIndex(page[:start], "<details")
	end := strings.Index(page[start:], "\n</details>")
	return page[start : start+end]
}

// TestReplayHTMLLeadsWithTheCause: a failed row starts open, its body
// rendered (not waiting for a click), with its cause on the row: the first
// failure that is not the golden's difference. The golden's difference
// comes after what explains it, folded (a closed <details>); a row whose
// only failure is the golden's difference shows it unfolded, its first
// change on the row. A passing row starts closed, its body lazy.
func TestReplayHTMLLeadsWithTheCause(t *testing.T) {
	suite := suiteReplay(t, nil)
	var hostile ScenarioResult
	for _, s := range suite.Scenarios {
		if s.Name == "hostile/script" {
			hostile = s
		}
	}
	goldenOnly := hostile
	goldenOnly.Name, goldenOnly.Path = "golden/only", "scenarios/golden/only.yaml"
	goldenOnly.Failures = goldenOnly.Failures[:1]
	goldenOnly.Expectations = []Expectation{{Key: "termination", Passed: true}}
	r := NewReplay(append(suite.Scenarios, goldenOnly), nil)
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()

	failed := rowHTML(t, out, "hostile/script")
	if !strings.HasPrefix(failed, `<details class="row" open`) {
		t.Errorf("the failed row does not start open:\n%.200s", failed)
	}
	if strings.Contains(failed, `class="lazy"`) {
		t.Error("the failed row's body waits for a click")
	}
	summary, body, _ := strings.Cut(failed, "</summary>")
	if want := `<span class="reason">scenarios/hostile/script.yaml:19: expect.final: expected the final text to contain &#34;goodbye&#34;, found &#34;It is in.&#34;</span>`; !strings.Contains(summary, want) {
		t.Errorf("the failed row's summary lacks its cause %s:\n%s", want, summary)
	}
	expect, golden := strings.Index(body, "<h3>expectations</h3>"), strings.Index(body, `<details class="golden">`)
	if expect < 0 || golden < 0 || golden < expect {
		t.Errorf("the golden's difference is not folded after the expectations that explain it (expectations at %d, folded golden at %d):\n%s", expect, golden, body)
	}

	only := rowHTML(t, out, "golden/only")
	summary, body, _ = strings.Cut(only, "</summary>")
	if want := `<span class="reason">the outcome differs from the golden file scenarios/hostile/script.golden.yaml: -final: It was in. &#43;final: It is in.</span>`; !strings.Contains(summary, want) {
		t.Errorf("a golden-only failure's summary lacks its first change %s:\n%s", want, summary)
	}
	if !strings.Contains(body, `<details class="golden" open>`) {
		t.Errorf("a golden-only failure folds away its only cause:\n%s", body)
	}

	passed := rowHTML(t, out, "files/append")
	if strings.HasPrefix(passed, `<details class="row" open`) || !strings.Contains(passed, `class="lazy"`) {
		t.Errorf("the passing row starts open or its body is not lazy:\n%.300s", passed)
	}
}

// TestReplayHTMLDivergenceFirst: a row that diverged lists the divergence
// first and folds any golden difference a saved result carries after it.
func TestReplayHTMLDivergenceFirst(t *testing.T) {
	div := "replay: x.yaml: request 1 differs from tape[0] at line 9 (- tape, + run):\n-  content: hello\n+  content: goodbye\n"
	diff := "@@ -1,2 +1,2 @@\n-final: a\n+final: b\n"
	r := &Replay{Format: ReplayFormat, Scenarios: []ScenarioResult{{
		Name: "x", Path: "x.yaml", Status: StatusFail, Termination: "model_error", GoldenDifference: diff,
		Failures: []string{"x.yaml: the run diverged from the tape: " + div, "x.yaml: the run stopped at turn 1; 2 expectations and the golden were not compared",
			"the outcome differs from the golden file x.golden.yaml (- golden, + outcome; first difference):\n" + diff},
		Transcript: &Transcript{TerminationError: div},
	}}}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	row := rowHTML(t, buf.String(), "x")
	divAt, goldenAt := strings.Index(row, "content: goodbye"), strings.Index(row, `<details class="golden">`)
	if !strings.HasPrefix(row, `<details class="row" open`) || divAt < 0 || goldenAt < divAt {
		t.Errorf("the open row does not show the divergence (at %d) before the folded golden difference (at %d):\n%s", divAt, goldenAt, row)
	}
}

// TestReplayHTMLOpenRowsBounded: of many failed rows only the first
// openFailedRows start open, so that a page of hundreds of failures still
// opens at once; the others keep their cause on the row and a lazy body.
func TestReplayHTMLOpenRowsBounded(t *testing.T) {
	var buf bytes.Buffer
	if err := largeReplay(t, 100).WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if n := strings.Count(out, `<details class="row" open`); n != openFailedRows {
		t.Errorf("%d rows start open, want %d", n, openFailedRows)
	}
	if n := strings.Count(out, `<span class="reason">`); n != 50 {
		t.Errorf("%d rows show their cause, want the 50 failed ones", n)
	}
	if n := strings.Count(out, `class="lazy"`); n != 100-openFailedRows {
		t.Errorf("%d rows with lazy bodies, want %d", n, 100-openFailedRows)
	}
}

// TestReplayPageCountsAndGoldenFailures: the headline counts every
// scenario, and a golden-difference failure is left out of a row's failures
// (its diff is shown instead) only when the scenario has a golden diff.
func TestReplayPageCountsAndGoldenFailures(t *testing.T) {
	golden := goldenDifferencePrefix + "x.golden.yaml"
	p := replayPage(NewReplay([]ScenarioResult{
		{Name: "with", Path: "a.yaml", Status: StatusFail, GoldenDifference: "-a\n+b\n", Failures: []string{golden, "other"}},
		{Name: "without", Path: "b.yaml", Status: StatusFail, Failures: []string{golden}},
		{Name: "ok", Path: "c.yaml", Status: StatusPass},
	}, nil))
	if p.Counts.Total != 3 || p.Counts.Failed != 2 || p.Counts.Passed != 1 {
		t.Errorf("counts %+v, want 3 total, 2 failed, 1 passed", p.Counts)
	}
	failures := map[string][]string{}
	for _, r := range p.Rows {
		failures[r.Name] = r.Failures
	}
	if !slices.Equal(failures["with"], []string{"other"}) || !slices.Equal(failures["without"], []string{golden}) {
		t.Errorf("row failures %q", failures)
	}
}

// TestShowDivergenceOnceFrom80Bytes: a multi-line divergence of 80 bytes is
// long enough to be shown once; at 79 bytes it is repeated as it is.
func TestShowDivergenceOnceFrom80Bytes(t *testing.T) {
	for _, n := range []int{79, 80} {
		div := "first line\n" + strings.Repeat("x", n-len("first line\n"))
		rw := row{Failures: []string{div}, Trials: []trialView{{Transcript: &Transcript{TerminationError: div}}}}
		showDivergenceOnce(&rw)
		want := divergenceOnce
		if n < 80 {
			want = div
		}
		if got := rw.Trials[0].Transcript.TerminationError; got != want || rw.Failures[0] != div {
			t.Errorf("%d bytes: transcript error %q, failure %q; want %q and the divergence", n, got, rw.Failures[0], want)
		}
	}
}

// TestReplayHTMLSandboxNotes: what a scenario's sandbox did not hold
// (ScenarioResult.Sandbox) is on its row, counted, each note in the
// title, and each in the row's body, escaped like every string; a row
// without notes says nothing of the sandbox.
func TestReplayHTMLSandboxNotes(t *testing.T) {
	notes := []string{"the network is not isolated: <script>alert(1)</script>", "the agent command left 1 process running, killed when the run ended: node"}
	r := NewReplay([]ScenarioResult{
		{Name: "cmd/partial", Path: "scenarios/cmd/partial.yaml", Status: StatusPass, Sandbox: notes},
		{Name: "cmd/one", Path: "scenarios/cmd/one.yaml", Status: StatusFail, Failures: []string{"scenarios/cmd/one.yaml:3: expect.final: wrong"}, Sandbox: notes[1:]},
		{Name: "cmd/whole", Path: "scenarios/cmd/whole.yaml", Status: StatusPass},
	}, nil)
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "<script>alert") {
		t.Error("a sandbox note reached the page unescaped")
	}
	for _, c := range []struct {
		name, summary string
		body          []string
	}{
		{"cmd/partial", `<span class="b sandbox" title="the network is not isolated: &lt;script&gt;alert(1)&lt;/script&gt;&#10;the agent command left 1 process running, killed when the run ended: node">sandbox: 2 notes</span>`,
			[]string{`<h3>sandbox</h3><pre class="sandbox">the network is not isolated: &lt;script&gt;alert(1)&lt;/script&gt;</pre><pre class="sandbox">the agent command left 1 process running, killed when the run ended: node</pre>`}},
		{"cmd/one", `<span class="b sandbox" title="the agent command left 1 process running, killed when the run ended: node">sandbox: 1 note</span>`,
			[]string{`<pre class="sandbox">the agent command left 1 process running, killed when the run ended: node</pre>`}},
	} {
		summary, body, _ := strings.Cut(rowHTML(t, out, c.name), "</summary>")
		if !strings.Contains(summary, c.summary) {
			t.Errorf("%s: the row's summary lacks %s:\n%s", c.name, c.summary, summary)
		}
		for _, w := range c.body {
			if !strings.Contains(body, w) {
				t.Errorf("%s: the row's body lacks %s:\n%s", c.name, w, body)
			}
		}
	}
	if whole := rowHTML(t, out, "cmd/whole"); strings.Contains(whole, "sandbox") {
		t.Errorf("a row without sandbox notes mentions the sandbox:\n%s", whole)
	}
}
