package fromharness

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

var update = flag.Bool("update", false, "rewrite ../testdata/suite.json")

// hostile is model-controlled text that must render as text, never as markup.
const hostile = `<script>window.pwned=1;document.title="pwned"</script><img src=x onerror="window.pwned=2">`

// passingScenario appends a line to a file; its golden is blessed, so it passes.
const passingScenario = `format: tapeloop/v1
tags: [files]
setup:
  workspace: {files: {notes.txt: "hello\n"}}
  tools: [write_file]
input:
  - {role: user, content: "Append world to notes.txt."}
tape:
  - response:
      tool_calls:
        - {id: call_1, name: write_file, arguments: '{"path": "notes.txt", "content": "hello\nworld\n",}'}
  - response: {content: "Done."}
expect:
  termination: final_text
  repairs: {call_1: [trailing_comma]}
  files: {notes.txt: "hello\nworld\n"}
`

// failingScenario writes the hostile string, reads it back and answers; its
// final-text expectation fails, and its golden is edited after blessing so
// the outcome differs from it.
var failingScenario = `format: tapeloop/v1
tags: [hostile, files]
setup:
  workspace: {files: {page.html: "<p>old</p>\n"}}
  tools: [read_file, write_file]
input:
  - {role: user, content: "Put a script in page.html."}
tape:
  - response:
      content: 'Writing ` + strings.ReplaceAll(hostile, "'", "''") + `'
      tool_calls:
        - {id: call_1, name: write_file, arguments: {path: page.html, content: '` + strings.ReplaceAll(hostile, "'", "''") + `'}}
  - response:
      tool_calls:
        - {id: call_2, name: read_file, arguments: {path: page.html}}
  - response: {content: "It is in."}
expect:
  termination: final_text
  final: {contains: "goodbye"}
`

// fixtureSuite writes a suite of two scenarios (files/append passes,
// hostile/script fails both its golden and an expectation) and returns the
// folder.
func fixtureSuite(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "scenarios")
	write := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("files/append.yaml", passingScenario)
	write("hostile/script.yaml", failingScenario)
	for _, rel := range []string{"files/append.yaml", "hostile/script.yaml"} {
		v := harness.Verify(context.Background(), filepath.Join(dir, rel), &harness.VerifyOptions{Update: true})
		if v.Err != nil {
			t.Fatalf("blessing %s: %v", rel, v.Err)
		}
	}
	golden := filepath.Join(dir, "hostile", "script.golden.yaml")
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), "final: It is in.", "final: It was in.", 1)
	if edited == string(b) {
		t.Fatalf("the golden has no line %q to edit:\n%s", "final: It is in.", b)
	}
	if err := os.WriteFile(golden, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// replayOf verifies every scenario under dir and returns the replay result,
// each scenario taking a fixed time so results compare equal.
func replayOf(t testing.TB, dir string, shard *report.Shard) *report.Replay {
	t.Helper()
	paths, err := scenario.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	var results []report.ScenarioResult
	for _, p := range paths {
		v := harness.Verify(context.Background(), p, &harness.VerifyOptions{})
		if !shard.Contains(v.Name) {
			continue
		}
		results = append(results, ScenarioResult(v, 2*time.Millisecond))
	}
	return report.NewReplay(results, shard)
}

func TestScenarioResult(t *testing.T) {
	r := replayOf(t, fixtureSuite(t), nil)
	if got := []string{r.Scenarios[0].Name, r.Scenarios[1].Name}; got[0] != "files/append" || got[1] != "hostile/script" {
		t.Fatalf("scenarios %v, want files/append then hostile/script", got)
	}
	want := report.ReplaySummary{Scenarios: 2, Passed: 1, Failed: 1, Seconds: 0.004}
	if r.Summary != want {
		t.Errorf("summary %+v, want %+v", r.Summary, want)
	}
	pass, fail := r.Scenarios[0], r.Scenarios[1]
	if pass.Status != report.StatusPass || pass.GoldenDifference != "" || len(pass.Failures) != 0 {
		t.Errorf("files/append: %+v", pass)
	}
	wantExp := []report.Expectation{{Key: "termination", Passed: true}, {Key: "repairs", Passed: true}, {Key: "files", Passed: true}}
	if !reflect.DeepEqual(pass.Expectations, wantExp) {
		t.Errorf("files/append expectations %+v, want %+v", pass.Expectations, wantExp)
	}
	if fail.Status != report.StatusFail || !strings.Contains(fail.GoldenDifference, "-final: It was in.\n+final: It is in.\n") {
		t.Errorf("hostile/script: status %s, golden difference:\n%s", fail.Status, fail.GoldenDifference)
	}
	if len(fail.Expectations) != 2 || !fail.Expectations[0].Passed || fail.Expectations[1].Passed ||
		fail.Expectations[1].Key != "final" || len(fail.Expectations[1].Messages) != 1 ||
		!strings.Contains(fail.Expectations[1].Messages[0], `expect.final: expected the final text to contain "goodbye", found "It is in."`) {
		t.Errorf("hostile/script expectations %+v", fail.Expectations)
	}
	tr := fail.Transcript
	if tr == nil || len(tr.Turns) != 3 {
		t.Fatalf("transcript %+v, want 3 turns", tr)
	}
	if got := tr.Turns[0].User; len(got) != 1 || got[0] != "Put a script in page.html." {
		t.Errorf("turn 1 user %q", got)
	}
	if tr.Turns[1].User != nil {
		t.Errorf("turn 2 user %q, want none", tr.Turns[1].User)
	}
	if c := tr.Turns[1].Calls[0]; c.Name != "read_file" || c.Result != hostile {
		t.Errorf("turn 2 call %+v, want read_file returning the hostile string", c)
	}
	if !strings.Contains(tr.Turns[0].Diff, "-<p>old</p>") {
		t.Errorf("turn 1 diff:\n%s", tr.Turns[0].Diff)
	}
	if tr.Final != "It is in." {
		t.Errorf("final %q", tr.Final)
	}
}

// TestSuiteFixture checks report/testdata/suite.json, the replay result of
// fixtureSuite that package report's tests render (they cannot run the
// harness: it would make report import it), against what ScenarioResult
// builds now; -update rewrites it. The suite's temporary folder is written
// as "scenarios" so the file is the same on every machine.
func TestSuiteFixture(t *testing.T) {
	dir := fixtureSuite(t)
	var buf bytes.Buffer
	if err := replayOf(t, dir, nil).WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	got := bytes.ReplaceAll(buf.Bytes(), []byte(dir), []byte("scenarios"))
	path := filepath.Join("..", "testdata", "suite.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report/fromharness -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go test ./report/fromharness -update and review the diff", path)
	}
	if _, err := report.DecodeReplay(path, want); err != nil {
		t.Error(err)
	}
}

// TestScenarioResultFromScenario: a verdict's scenario gives the result its
// tags and, with an outcome, the judge items' verdicts; a verdict without a
// scenario (it did not load) has neither.
func TestScenarioResultFromScenario(t *testing.T) {
	sc := &scenario.Scenario{Tags: []string{"smoke"}, Expect: &scenario.Expect{Judges: []scenario.JudgeExpect{{Rubric: "polite"}}}}
	r := ScenarioResult(&harness.Verdict{Name: "s", Scenario: sc, Outcome: &harness.Outcome{}}, 0)
	if !slices.Equal(r.Tags, []string{"smoke"}) || len(r.Judge) != 1 || r.Judge[0].Rubric != "polite" {
		t.Errorf("tags %q, judge %+v; want [smoke] and one verdict", r.Tags, r.Judge)
	}
	if r := ScenarioResult(&harness.Verdict{Name: "s", Outcome: &harness.Outcome{}}, 0); r.Tags != nil || r.Judge != nil {
		t.Errorf("tags %q, judge %+v without a scenario; want none", r.Tags, r.Judge)
	}
}

// TestVerdictsOnlyForJudgeItems: no expect block, or one without judge
// items, gives no verdicts; each judge item gets one, "not judged" when the
// outcome has none for it.
func TestVerdictsOnlyForJudgeItems(t *testing.T) {
	o := &harness.Outcome{}
	if v := Verdicts(&scenario.Scenario{}, o); v != nil {
		t.Errorf("no expect block: %+v", v)
	}
	if v := Verdicts(&scenario.Scenario{Expect: &scenario.Expect{}}, o); v != nil {
		t.Errorf("no judge items: %+v", v)
	}
	v := Verdicts(&scenario.Scenario{Expect: &scenario.Expect{Judges: []scenario.JudgeExpect{{Rubric: "polite"}}}}, o)
	if len(v) != 1 || v[0].Rubric != "polite" || v[0].Problem != "not judged" {
		t.Errorf("one judge item: %+v", v)
	}
}

// TestTranscriptWithoutTheConversation: an outcome whose turns outnumber the
// user messages it has (here: no run, so none) still gives a transcript,
// with no user lines.
func TestTranscriptWithoutTheConversation(t *testing.T) {
	tr := Transcript(&harness.Outcome{Turns: []harness.TurnOutcome{{Index: 1}, {Index: 2}}})
	if len(tr.Turns) != 2 || tr.Turns[0].User != nil || tr.Turns[1].Index != 2 {
		t.Errorf("transcript %+v; want two turns without user messages", tr)
	}
}

// TestScenarioResultSandbox: what a scenario's agent program's sandbox did
// not hold (Outcome.Sandbox) is in its result, under "sandbox", and does
// not fail it.
func TestScenarioResultSandbox(t *testing.T) {
	notes := []string{"the network is not isolated: it could reach any address"}
	r := ScenarioResult(&harness.Verdict{Name: "cmd", Outcome: &harness.Outcome{Sandbox: notes}}, 0)
	if r.Status != report.StatusPass || !slices.Equal(r.Sandbox, notes) {
		t.Errorf("status %s, sandbox %q; want pass, %q", r.Status, r.Sandbox, notes)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"sandbox":["the network is not isolated: it could reach any address"]`) {
		t.Errorf("the JSON result holds no sandbox: %s", b)
	}
}
