package harness

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/scenario"
)

func TestParseVerdict(t *testing.T) {
	ok := []struct {
		answer string
		score  float64
		pass   bool
		reason string
	}{
		{`{"score": 0.75, "pass": true, "reason": "mostly"}`, 0.75, true, "mostly"},
		{"```json\n{\"score\": 0, \"pass\": false, \"reason\": \"no\",}\n```", 0, false, "no"},
		{`Here is my verdict: {"score": 1, "pass": true, "reason": "all of it"}`, 1, true, "all of it"},
	}
	for _, c := range ok {
		score, pass, reason, err := ParseVerdict(c.answer)
		if err != nil || score != c.score || pass != c.pass || reason != c.reason {
			t.Errorf("ParseVerdict(%q) = %v, %v, %q, %v; want %v, %v, %q", c.answer, score, pass, reason, err, c.score, c.pass, c.reason)
		}
	}
	bad := map[string]string{
		"I think it passes.":                                       "",
		`{"score": 0.5, "pass": true}`:                             `no "reason"`,
		`{"pass": true, "reason": "r"}`:                            `no "score"`,
		`{"score": 0.5, "reason": "r"}`:                            `no "pass"`,
		`{"score": 1.5, "pass": true, "reason": "r"}`:              "score 1.5 is not from 0 to 1",
		`{"score": 0.5, "pass": "yes", "reason": "r"}`:             `"pass" is not a bool`,
		`{"score": 0.5, "pass": true, "reason": "r", "extra": 1}`:  "unknown field",
		`{"score": 0.5, "pass": true, "reason": "r"} {"score": 1}`: "",
		`[{"score": 0.5, "pass": true, "reason": "r"}]`:            "want a JSON object",
	}
	for answer, want := range bad {
		_, _, _, err := ParseVerdict(answer)
		if !errors.Is(err, ErrVerdict) || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseVerdict(%q) = %v, want ErrVerdict saying %q", answer, err, want)
		}
	}
}

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

// scriptedJudge answers every request with answer and counts the calls.
func scriptedJudge(answer string, calls *atomic.Int32, seen *[]string) func(string) (llm.Model, error) {
	return func(name string) (llm.Model, error) {
		return llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
			calls.Add(1)
			if seen != nil {
				*seen = append(*seen, name)
			}
			if req.Messages[0].Content != JudgePrompt {
				return nil, errors.New("the system message is not JudgePrompt")
			}
			return &llm.Response{Message: llm.AssistantMessage(answer)}, nil
		}), nil
	}
}

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

func TestJudgeLiveThenReplay(t *testing.T) {
	s, o := parseRun(t, judgeScenario)
	var calls atomic.Int32
	var models []string
	verdicts, err := JudgeLive(context.Background(), s, o, &JudgeOptions{Model: scriptedJudge(`{"score": 0.7, "pass": true, "reason": "it names sk-proj-abcdefghijklmnopqrstuvwxyz0123"}`, &calls, &models), Default: "test/judge"})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 || strings.Join(models, ",") != "test/judge,test/strict" {
		t.Fatalf("judge calls = %d to %v, want 2: the default, then the item's model", calls.Load(), models)
	}
	for _, v := range verdicts {
		if strings.Contains(v.Judged+v.Reason+v.Request.Messages[1].Content, "sk-proj-") {
			t.Errorf("a verdict keeps the secret: %+v", v)
		}
	}
	if verdicts[1].On != "transcript" || !strings.HasPrefix(verdicts[1].Judged, "user: what is the key?\ncall calculator {\"operation\": \"add\", \"a\": 1, \"b\": 1}\nresult calculator: 2\nassistant: the key is [REDACTED]\n") {
		t.Errorf("transcript judged = %q, want the call and its result", verdicts[1].Judged)
	}
	// The first item passes on the judge's pass; the second's score 0.7 is
	// below its threshold 0.8.
	fs := Failures(s, o)
	if len(fs) != 1 || fs[0].Key != "judge[1]" || !strings.HasPrefix(fs[0].Message, "j.yaml:11: expect.judge[1]: the judge (test/strict) scored 0.7, below the threshold 0.8: it names [REDACTED]") {
		t.Fatalf("Failures = %+v, want judge[1] below its threshold", fs)
	}

	// Recorded into the file, the verdicts replay with no judge.
	node, err := replay.EncodeVerdicts(verdicts)
	if err != nil {
		t.Fatal(err)
	}
	src, err := scenario.SetValue([]byte(judgeScenario), "j.yaml", []string{"judge"}, node)
	if err != nil {
		t.Fatal(err)
	}
	rs, ro := parseRun(t, string(src))
	replayVerdicts(rs, ro, "evalrun", rs.Path)
	if len(ro.Judged) != 2 || ro.Judged[0].Verdict == nil || ro.Judged[1].Verdict == nil || len(ro.Unused) != 0 {
		t.Fatalf("replayed Judged = %+v, Unused %v; want both verdicts re-used", ro.Judged, ro.Unused)
	}
	if got := Failures(rs, ro); len(got) != 1 || got[0].Message != fs[0].Message {
		t.Errorf("replayed Failures = %+v, want the live one %q", got, fs[0].Message)
	}

	// The final text edited: the final verdict fails closed, naming the
	// judge entry's line, with a diff; the transcript's too.
	edited := strings.Replace(string(src), `content: "the key is`, `content: "the door is`, 1)
	es, eo := parseRun(t, edited)
	replayVerdicts(es, eo, "evalrun", es.Path)
	ef := Failures(es, eo)
	if len(ef) != 2 {
		t.Fatalf("edited: Failures = %+v, want both items failing", ef)
	}
	want := "j.yaml:14: judge[0]: the judged text changed: re-record the verdict with `evalrun record --mode judge --judge-model PROVIDER/MODEL j.yaml`"
	if !strings.HasPrefix(ef[0].Message, want) || !strings.Contains(ef[0].Message, "\n-the key is [REDACTED]\n") || !strings.Contains(ef[0].Message, "\n+the door is [REDACTED]\n") {
		t.Errorf("edited: failure = %q, want %q... with a diff", ef[0].Message, want)
	}

	// A rubric changed: no verdict for it, and the old one is unused.
	changed := strings.Replace(string(src), `{rubric: "names the key"}`, `{rubric: "names the door"}`, 1)
	cs, co := parseRun(t, changed)
	replayVerdicts(cs, co, "evalrun", cs.Path)
	cf := Failures(cs, co)
	if len(cf) != 2 || !strings.HasPrefix(cf[0].Message, "j.yaml:10: expect.judge[0]: no verdict recorded for this rubric (a replay never calls the judge): record one with `evalrun record --mode judge") {
		t.Errorf("changed rubric: Failures = %+v", cf)
	}
	if len(co.Unused) != 1 || !strings.HasPrefix(co.Unused[0], "j.yaml:14: judge[0]: no expect.judge item uses this recorded verdict") {
		t.Errorf("changed rubric: Unused = %q, want the old verdict", co.Unused)
	}
}

func TestJudgeLiveErrors(t *testing.T) {
	s, o := parseRun(t, judgeScenario)
	var calls atomic.Int32
	_, err := JudgeLive(context.Background(), s, o, &JudgeOptions{Model: scriptedJudge("it passes, I think", &calls, nil), Default: "test/judge"})
	if !errors.Is(err, ErrVerdict) || !strings.HasPrefix(err.Error(), "j.yaml:10: expect.judge[0]: the judge test/judge: ") || o.Judged != nil {
		t.Errorf("an unparseable verdict: err = %v, Judged = %v; want ErrVerdict at the item and no verdicts", err, o.Judged)
	}
	if fs := Failures(s, o); len(fs) != 2 || !strings.Contains(fs[0].Message, "not judged") {
		t.Errorf("not judged: Failures = %+v, want both items failing", fs)
	}
	_, err = JudgeLive(context.Background(), s, o, &JudgeOptions{Model: scriptedJudge("{}", &calls, nil)})
	if !errors.Is(err, ErrNoJudgeModel) {
		t.Errorf("no default model: err = %v, want ErrNoJudgeModel", err)
	}
	if _, err := JudgeModels(s, ""); !errors.Is(err, ErrNoJudgeModel) || !strings.HasPrefix(err.Error(), "j.yaml:10: expect.judge[0]") {
		t.Errorf("JudgeModels with no default = %v", err)
	}
	if got, err := JudgeModels(s, "test/judge"); err != nil || strings.Join(got, ",") != "test/judge,test/strict" {
		t.Errorf("JudgeModels = %v, %v", got, err)
	}
}

func TestJudgeResultPassed(t *testing.T) {
	th := func(f float64) *float64 { return &f }
	cases := []struct {
		threshold *float64
		verdict   *replay.Verdict
		want      bool
	}{
		{th(0.8), &replay.Verdict{Score: 0.8}, true},               // the threshold reached exactly
		{th(0.8), &replay.Verdict{Score: 0.79, Pass: true}, false}, // below it, whatever the judge says
		{th(0.8), &replay.Verdict{Score: 0.9, Pass: false}, true},  // above it, whatever the judge says
		{th(0), &replay.Verdict{Score: 0}, true},                   // 0 lets every score pass
		{nil, &replay.Verdict{Score: 0, Pass: true}, true},         // no threshold: the judge's pass
		{nil, &replay.Verdict{Score: 1, Pass: false}, false},       //
		{nil, nil, false},   // no verdict never passes
		{th(0), nil, false}, //
	}
	for i, c := range cases {
		if got := (JudgeResult{Verdict: c.verdict}).Passed(scenario.JudgeExpect{Threshold: c.threshold}); got != c.want {
			t.Errorf("case %d: Passed = %v, want %v", i, got, c.want)
		}
	}
}
