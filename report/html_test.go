package report

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
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
	if n := strings.Count(out, lazyOpen); n != 2 {
		t.Errorf("%d rows with lazy details, want 2", n)
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
	for _, m := range regexp.MustCompile(`<details class="row" id="(s\d+)" data-status="(\w+)"`).FindAllStringSubmatch(out, -1) {
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
