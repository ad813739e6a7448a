package report

import (
	"bytes"
	"encoding/xml"
	"html"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// sampleEval is an eval report of one scenario against two models: flaky on
// the first (one trial fails with the hostile string in its answer), passing
// on the second.
func sampleEval(t *testing.T) *Eval {
	t.Helper()
	tr := suiteReplay(t, nil).Scenarios[1].Transcript
	cost := 0.0125
	endNotes := "world\n"
	hostileAnswer := llm.AssistantMessage(hostile)
	return &Eval{
		Format: EvalFormat,
		Models: []EvalModel{
			{Name: "openai/a", Trials: 2, Passed: 1, PassRate: 0.5, PassAtK: map[int]float64{1: 0.5, 2: 1}, PassHatK: map[int]float64{1: 0.5, 2: 0},
				Classes: map[string]int{ClassFlaky: 1}, Tokens: Tokens{Input: 100, Output: 20}, Cost: &cost},
			{Name: "openai/b", Trials: 2, Passed: 2, PassRate: 1, PassAtK: map[int]float64{1: 1, 2: 1}, PassHatK: map[int]float64{1: 1, 2: 1},
				Classes: map[string]int{ClassPass: 1}},
		},
		Scenarios: []EvalScenario{
			{Name: "hostile/script", Path: "scenarios/hostile/script.yaml", Tags: []string{"hostile"}, Model: "openai/a", Trials: 2, Passed: 1,
				Class: ClassFlaky, PassAtK: map[int]float64{1: 0.5, 2: 1}, PassHatK: map[int]float64{1: 0.5, 2: 0}, Failures: map[string]int{"final": 1},
				TrialsDetail: []EvalTrial{
					{Trial: 1, Status: StatusPass, Passed: true, Termination: "final_text", Iterations: 3, Transcript: tr, DurationMS: 1500},
					{Trial: 2, Status: StatusFail, Termination: "final_text", Iterations: 1, DurationMS: 500,
						EndState: &EndState{Files: map[string]*string{"notes.txt": &endNotes, "gone.txt": nil}, State: `{"orders": {}}`},
						Failures: []string{`script.yaml:19: expect.final: expected the final text to contain "goodbye"`}, FailureKeys: []string{"final"},
						Tape: []EvalTapeEntry{{Tools: []string{"read_file"}, Response: &EvalResponse{Message: hostileAnswer}}}},
				}},
			{Name: "hostile/script", Path: "scenarios/hostile/script.yaml", Tags: []string{"hostile"}, Model: "openai/b", Trials: 2, Passed: 2,
				Class: ClassPass, PassAtK: map[int]float64{1: 1, 2: 1}, PassHatK: map[int]float64{1: 1, 2: 1}, Failures: map[string]int{},
				TrialsDetail: []EvalTrial{{Trial: 1, Status: StatusPass, Passed: true}, {Trial: 2, Status: StatusPass, Passed: true}}},
		},
	}
}

func TestEvalHTML(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleEval(t).WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "<script>window.pwned") || strings.Count(out, "<script>") != 1 {
		t.Fatal("the hostile string reached the page as markup")
	}
	for _, want := range []string{
		// The headline counts trials (3 passed, 1 failed of 4), the pairs
		// line scenario × model pairs (one flaky, one passing).
		`<b id="count-pass">3</b>`, `<b id="count-fail">1</b>`, `<b id="count-error">0</b>`, `<b id="count-total">4</b> trials`,
		`<b id="pair-total">2</b> scenario × model pairs`, `<b id="pair-flaky">1</b>`, `<b id="pair-pass">1</b>`, `<b id="pair-fail">0</b>`,
		`<td>openai/a</td>`, `@1 50%`, `^2 0%`, `$0.0125`,
		`<select id="model">`, `<option>openai/b</option>`,
		`data-status="flaky" data-model="openai/a"`,
		`1/2 trials passed; final 1/2`,
		`trial 1 · final_text · 3 model calls`, `trial 2 · final_text · 1 model calls`,
		// trial 2's end state: the files its expectations name, then the state.
		`<div class="turn-h">end state</div><div class="msg"><span class="who">gone.txt</span><pre class="note">(does not exist)</pre></div><div class="msg"><span class="who">notes.txt</span><pre>world`,
		`<span class="who">state</span><pre>{&#34;orders&#34;: {}}</pre>`,
		`<span class="d-add">&#43;&lt;script&gt;`, // trial 1's workspace diff, from its transcript
		html.EscapeString(hostile),                // trial 2's answer, from its tape
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if n := strings.Count(out, `<section class="trial">`); n != 4 {
		t.Errorf("%d trials shown, want 4 (two per row, side by side)", n)
	}
}

func TestEvalJUnit(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleEval(t).WriteJUnit(&buf); err != nil {
		t.Fatal(err)
	}
	if err := validateJUnit(buf.Bytes()); err != nil {
		t.Fatalf("not the JUnit shape: %v\n%s", err, buf.String())
	}
	var doc junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != 2 || doc.Tests != 2 || doc.Failures != 1 || doc.Suites[0].Name != "openai/a" || doc.Suites[0].Time != "2.000000" {
		t.Fatalf("suites %+v", doc)
	}
	c := doc.Suites[0].Cases[0]
	if c.Failure == nil || c.Failure.Message != "flaky: 1/2 trials passed; final 1/2" || c.Failure.Type != "flaky" ||
		!strings.Contains(c.Failure.Body, `trial 2: script.yaml:19: expect.final`) {
		t.Errorf("failure %+v", c.Failure)
	}
	props := map[string]string{}
	for _, p := range c.Properties.Property {
		props[p.Name] = p.Value
	}
	if props["class"] != "flaky" || props["pass@1"] != "0.5000" || props["pass^2"] != "0.0000" || props["trial 1"] != "pass" || props["trial 2"] != "fail" {
		t.Errorf("properties %v", props)
	}
	if !strings.HasPrefix(c.SystemOut, "trial 2 (fail)\nturn 1\n  model: "+hostile) {
		t.Errorf("system-out:\n%s", c.SystemOut)
	}
	if ok := doc.Suites[1].Cases[0]; ok.Failure != nil || ok.Error != nil {
		t.Errorf("the passing row failed: %+v", ok)
	}
}

// evalWithAnErrorTrial is one scenario × model with a passed trial and an
// error trial whose tape holds a failed call after a user message.
func evalWithAnErrorTrial() *Eval {
	return &Eval{Scenarios: []EvalScenario{{
		Name: "g/s", Path: "scenarios/g/s.yaml", Model: "m", Trials: 1, Passed: 1, Errors: 1, Class: ClassError,
		TrialsDetail: []EvalTrial{
			{Trial: 1, Status: StatusPass, DurationMS: 1500},
			{Trial: 2, Status: StatusError, Error: "provider down", DurationMS: 500, Tape: []EvalTapeEntry{
				{LastMessage: &llm.Message{Role: llm.RoleUser, Content: "do it"}, Error: "provider down"},
			}},
		},
	}}}
}

// TestEvalPageCountsAndTrials: the headline counts trials and errors
// (Trials + Errors), rows are numbered from s1, a row's seconds add its
// trials' milliseconds, an error trial shows its error among its failures,
// and a trial without a transcript gets one from its tape.
func TestEvalPageCountsAndTrials(t *testing.T) {
	p := evalPage(evalWithAnErrorTrial())
	if p.Counts.Total != 2 || p.Pairs.Total != 1 || p.Pairs.Errors != 1 || len(p.Rows) != 1 {
		t.Fatalf("counts %+v, pairs %+v, %d rows; want total 2, one error pair and one row", p.Counts, p.Pairs, len(p.Rows))
	}
	r := p.Rows[0]
	if r.ID != "s1" || r.Seconds != 2 || len(r.Trials) != 2 {
		t.Fatalf("row %s: %v seconds, %d trials; want s1, 2, 2", r.ID, r.Seconds, len(r.Trials))
	}
	if f := r.Trials[1].Failures; !slices.Equal(f, []string{"provider down"}) {
		t.Errorf("error trial failures %q, want the error", f)
	}
	if f := r.Trials[0].Failures; len(f) != 0 {
		t.Errorf("passed trial failures %q, want none", f)
	}
	tr := r.Trials[1].Transcript
	if tr == nil || len(tr.Turns) != 1 || !slices.Equal(tr.Turns[0].User, []string{"do it"}) || tr.Turns[0].Content != "model call failed: provider down" {
		t.Errorf("tape transcript %+v; want one turn: the user message and the failed call", tr)
	}
}
