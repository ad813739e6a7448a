package fromharness

import (
	"slices"
	"testing"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
)

// Tests that close mutants scripts/mutation found alive: each checks a
// behaviour the other tests left open.

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
