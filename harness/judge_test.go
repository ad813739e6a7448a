package harness

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/redact"
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

// TestJudgeScoresAreShownExactly: a failing judge item shows the score
// and the threshold as written, all their digits.
func TestJudgeScoresAreShownExactly(t *testing.T) {
	s, o := parseRun(t, strings.Replace(judgeScenario, "threshold: 0.8", "threshold: 0.85", 1))
	o.Judged = []JudgeResult{
		{Verdict: &tape.Verdict{Model: "test/judge", Score: 1, Pass: true}},
		{Verdict: &tape.Verdict{Model: "test/strict", Score: 0.75, Reason: "unsure"}},
	}
	fs := Failures(s, o)
	if len(fs) != 1 || fs[0].Error() != "j.yaml:11: expect.judge[1]: the judge (test/strict) scored 0.75, below the threshold 0.85: unsure" {
		t.Errorf("failures %+v", fs)
	}
}

// TestJudgeFailuresSayWhy: an item the judge failed without a threshold
// says so with its score and reason, and an item with no verdict at all
// (an outcome nobody judged) says it was not judged, each at its line.
func TestJudgeFailuresSayWhy(t *testing.T) {
	s, o := parseRun(t, judgeScenario)
	o.Judged = []JudgeResult{{Verdict: &tape.Verdict{Model: "test/judge", Score: 0, Reason: "it names no key"}}}
	fs := Failures(s, o)
	want := []string{
		"j.yaml:10: expect.judge[0]: the judge (test/judge) failed it (score 0): it names no key",
		"j.yaml:11: expect.judge[1]: not judged (no verdict was asked for or recorded)",
	}
	if len(fs) != len(want) {
		t.Fatalf("failures %v, want %q", fs, want)
	}
	for i, f := range fs {
		if f.Error() != want[i] {
			t.Errorf("failure %d:\n got %s\nwant %s", i, f.Error(), want[i])
		}
	}
}

// TestReplayVerdictsWithNothingRecorded: a replay of judge items with no
// verdict recorded fails each saying how to record one; a recorded
// verdict with no item is reported unused.
func TestReplayVerdictsWithNothingRecorded(t *testing.T) {
	s, o := parseRun(t, judgeScenario)
	replayVerdicts(s, o, redact.Default(), "evalrun", s.Path)
	fs := Failures(s, o)
	if len(fs) != 2 || !strings.HasPrefix(fs[0].Error(), "j.yaml:10: expect.judge[0]: no verdict recorded for this rubric") {
		t.Errorf("no verdicts: failures %+v", fs)
	}

	noItems := judgeScenario[:strings.Index(judgeScenario, "expect:")] +
		"judge:\n  - {rubric: r, model: test/judge, on: final, judged: x, score: 1, pass: true, reason: ok}\n"
	s, o = parseRun(t, noItems)
	replayVerdicts(s, o, redact.Default(), "evalrun", s.Path)
	if len(o.Unused) != 1 || !strings.HasPrefix(o.Unused[0].Error(), "j.yaml:9: judge[0]: no expect.judge item uses this recorded verdict") {
		t.Errorf("no items: Unused = %q, want the recorded verdict", o.Unused)
	}
}

// TestJudgeTakesRecordedVerdictsOnlyInAReplay: Judge re-uses the
// scenario's recorded verdicts for an outcome not judged live, and keeps
// the verdicts of one that was.
func TestJudgeTakesRecordedVerdictsOnlyInAReplay(t *testing.T) {
	recorded, err := tape.EncodeVerdicts([]tape.Verdict{
		{Rubric: "names the key", Model: "test/judge", On: "final", Judged: "the key is [REDACTED]", Score: 1, Pass: true, Reason: "yes"},
		{Rubric: "is confident", Model: "test/strict", On: "transcript", Judged: "-", Score: 0.7, Pass: true, Reason: "unsure"},
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "j.yaml")
	src, err := scenario.SetValue([]byte(judgeScenario), path, []string{"judge"}, recorded)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Parse(src, path, "j")
	if err != nil {
		t.Fatal(err)
	}
	run := func() *Outcome {
		o, err := Run(context.Background(), s, nil)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	// A replay: the first verdict is re-used (the final text is the one
	// judged); the transcript changed, so the second item has none.
	v := judgeOutcome(s, run(), &VerifyOptions{Update: true})
	if v.Err != nil || len(v.Failures) != 1 || !strings.Contains(v.Failures[0].Error(), "expect.judge[1]") || !strings.Contains(v.Failures[0].Error(), "the judged text changed") {
		t.Errorf("replay: %v %q; want only judge[1] failing on its changed text", v.Err, v.Failures)
	}
	// Judged live: both verdicts stand as given.
	live := run()
	live.Judged = []JudgeResult{{Verdict: &tape.Verdict{Model: "test/judge", Score: 1, Pass: true}}, {Verdict: &tape.Verdict{Model: "test/strict", Score: 0.9}}}
	if v := judgeOutcome(s, live, &VerifyOptions{Update: true}); v.Err != nil || len(v.Failures) != 0 {
		t.Errorf("live: %v %q; want the live verdicts to pass", v.Err, v.Failures)
	}
}

// TestJudgedTextOfTheTranscript: a transcript judge item grades the
// scenario's input, each user turn, each answer's text and each call with
// its result, one line each in order; a final judge item grades the final
// text alone.
func TestJudgedTextOfTheTranscript(t *testing.T) {
	s, o := parseRun(t, `format: tapeloop/v1
input:
  - {role: system, content: "Be brief."}
  - {role: user, content: "What is 2+3?"}
setup:
  tools: [calculator]
tape:
  - response:
      content: "Adding."
      tool_calls: [{id: c1, name: calculator, arguments: '{"operation": "add", "a": 2, "b": 3}'}]
  - response: {content: "5"}
  - user: "And doubled?"
  - response: {content: "10"}
`)
	want := "system: Be brief.\n" +
		"user: What is 2+3?\n" +
		"assistant: Adding.\n" +
		`call calculator {"operation": "add", "a": 2, "b": 3}` + "\n" +
		"result calculator: 5\n" +
		"assistant: 5\n" +
		"user: And doubled?\n" +
		"assistant: 10\n"
	if got := JudgedText(s, o, scenario.JudgeTranscript); got != want {
		t.Errorf("the transcript judged:\n%s\nwant:\n%s", got, want)
	}
	if got := JudgedText(s, o, scenario.JudgeFinal); got != "10" {
		t.Errorf("the final text judged: %q; want 10", got)
	}
}
