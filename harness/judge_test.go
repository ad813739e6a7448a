package harness

import (
	"context"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// judgeScenario has one tool call and the final text "the key is KEY".
const judgeScenario = `format: tapeloop/v1
input: [{role: user, content: "what is the key?"}]
setup:
  tools: [calculator]
tape:
  - response: {tool_calls: [{id: c1, name: calculator, arguments: '{"operation": "add", "a": 1, "b": 1}'}]}
  - response: {content: "the key is sk-proj-abcdefghijklmnopqrstuvwxyz0123"}
expect:
  judge:
    - {rubric: "names the key"}
    - {rubric: "is confident", threshold: 0.8, on: transcript, model: test/strict}
`

func parseRun(t *testing.T, src string) (*scenario.Scenario, *Outcome) {
	t.Helper()
	s, err := scenario.Parse([]byte(src), "j.yaml", "j")
	if err != nil {
		t.Fatal(err)
	}
	o, err := Run(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, o
}

func TestJudgeResultPassed(t *testing.T) {
	th := func(f float64) *float64 { return &f }
	cases := []struct {
		threshold *float64
		verdict   *tape.Verdict
		want      bool
	}{
		{th(0.8), &tape.Verdict{Score: 0.8}, true},               // the threshold reached exactly
		{th(0.8), &tape.Verdict{Score: 0.79, Pass: true}, false}, // below it, whatever the judge says
		{th(0.8), &tape.Verdict{Score: 0.9, Pass: false}, true},  // above it, whatever the judge says
		{th(0), &tape.Verdict{Score: 0}, true},                   // 0 lets every score pass
		{nil, &tape.Verdict{Score: 0, Pass: true}, true},         // no threshold: the judge's pass
		{nil, &tape.Verdict{Score: 1, Pass: false}, false},       //
		{nil, nil, false},   // no verdict never passes
		{th(0), nil, false}, //
	}
	for i, c := range cases {
		if got := (JudgeResult{Verdict: c.verdict}).Passed(scenario.JudgeExpect{Threshold: c.threshold}); got != c.want {
			t.Errorf("case %d: Passed = %v, want %v", i, got, c.want)
		}
	}
}
