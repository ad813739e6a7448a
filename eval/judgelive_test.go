package eval

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
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
		score, pass, reason, err := parseVerdict(c.answer)
		if err != nil || score != c.score || pass != c.pass || reason != c.reason {
			t.Errorf("parseVerdict(%q) = %v, %v, %q, %v; want %v, %v, %q", c.answer, score, pass, reason, err, c.score, c.pass, c.reason)
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
		_, _, _, err := parseVerdict(answer)
		if !errors.Is(err, errVerdict) || !strings.Contains(err.Error(), want) {
			t.Errorf("parseVerdict(%q) = %v, want errVerdict saying %q", answer, err, want)
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

func parseRun(t *testing.T, src string) (*scenario.Scenario, *harness.Outcome) {
	t.Helper()
	s, err := scenario.Parse([]byte(src), "j.yaml", "j")
	if err != nil {
		t.Fatal(err)
	}
	o, err := harness.Run(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, o
}

// replayed replays the scenario src as j.yaml in the working directory
// through harness.VerifyScenario, which takes the verdicts of its judge
// items from its judge: section, and returns the scenario and outcome.
func replayed(t *testing.T, src string) (*scenario.Scenario, *harness.Outcome) {
	t.Helper()
	if err := os.WriteFile("j.yaml", []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load("j.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v := harness.VerifyScenario(context.Background(), s, nil)
	if v.Err != nil || v.Outcome == nil {
		t.Fatalf("replaying j.yaml: %v", v.Err)
	}
	return v.Scenario, v.Outcome
}

func TestJudgeLiveThenReplay(t *testing.T) {
	t.Chdir(t.TempDir())
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
	fs := harness.Failures(s, o)
	if len(fs) != 1 || fs[0].Key != "expect.judge[1]" || fs[0].Line != 11 || !strings.HasPrefix(fs[0].Error(), "j.yaml:11: expect.judge[1]: the judge (test/strict) scored 0.7, below the threshold 0.8: it names [REDACTED]") {
		t.Fatalf("Failures = %+v, want judge[1] below its threshold", fs)
	}

	// Recorded into the file, the verdicts replay with no judge.
	node, err := tape.EncodeVerdicts(verdicts)
	if err != nil {
		t.Fatal(err)
	}
	src, err := scenario.SetValue([]byte(judgeScenario), "j.yaml", []string{"judge"}, node)
	if err != nil {
		t.Fatal(err)
	}
	rs, ro := replayed(t, string(src))
	if len(ro.Judged) != 2 || ro.Judged[0].Verdict == nil || ro.Judged[1].Verdict == nil || len(ro.Unused) != 0 {
		t.Fatalf("replayed Judged = %+v, Unused %v; want both verdicts re-used", ro.Judged, ro.Unused)
	}
	if got := harness.Failures(rs, ro); len(got) != 1 || got[0].Error() != fs[0].Error() {
		t.Errorf("replayed Failures = %+v, want the live one %q", got, fs[0].Error())
	}

	// The final text edited: the final verdict fails closed, naming the
	// judge entry's line, with a diff; the transcript's too.
	edited := strings.Replace(string(src), `content: "the key is`, `content: "the door is`, 1)
	es, eo := replayed(t, edited)
	ef := harness.Failures(es, eo)
	if len(ef) != 2 {
		t.Fatalf("edited: Failures = %+v, want both items failing", ef)
	}
	want := "j.yaml:14: judge[0]: the judged text changed: re-record the verdict with `evalrun record --mode judge --judge-model PROVIDER/MODEL j.yaml`"
	if !strings.HasPrefix(ef[0].Error(), want) || !strings.Contains(ef[0].Error(), "\n-the key is [REDACTED]\n") || !strings.Contains(ef[0].Error(), "\n+the door is [REDACTED]\n") {
		t.Errorf("edited: failure = %q, want %q... with a diff", ef[0].Error(), want)
	}

	// A rubric changed: no verdict for it, and the old one is unused.
	changed := strings.Replace(string(src), `{rubric: "names the key"}`, `{rubric: "names the door"}`, 1)
	cs, co := replayed(t, changed)
	cf := harness.Failures(cs, co)
	if len(cf) != 2 || !strings.HasPrefix(cf[0].Error(), "j.yaml:10: expect.judge[0]: no verdict recorded for this rubric (a replay never calls the judge): record one with `evalrun record --mode judge") {
		t.Errorf("changed rubric: Failures = %+v", cf)
	}
	if len(co.Unused) != 1 || !strings.HasPrefix(co.Unused[0].Error(), "j.yaml:14: judge[0]: no expect.judge item uses this recorded verdict") {
		t.Errorf("changed rubric: Unused = %q, want the old verdict", co.Unused)
	}
}

func TestJudgeLiveErrors(t *testing.T) {
	s, o := parseRun(t, judgeScenario)
	var calls atomic.Int32
	_, err := JudgeLive(context.Background(), s, o, &JudgeOptions{Model: scriptedJudge("it passes, I think", &calls, nil), Default: "test/judge"})
	if !errors.Is(err, errVerdict) || !strings.HasPrefix(err.Error(), "j.yaml:10: expect.judge[0]: the judge test/judge: ") || o.Judged != nil {
		t.Errorf("an unparseable verdict: err = %v, Judged = %v; want errVerdict at the item and no verdicts", err, o.Judged)
	}
	if fs := harness.Failures(s, o); len(fs) != 2 || !strings.Contains(fs[0].Error(), "not judged") {
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

// TestJudgeRequestNamesWhatIsJudged: the judge is told whether it grades
// the final answer or the transcript.
func TestJudgeRequestNamesWhatIsJudged(t *testing.T) {
	for on, what := range map[string]string{scenario.JudgeFinal: "final answer", scenario.JudgeTranscript: "transcript"} {
		req := judgeRequest("be kind", on, "hello")
		if got, want := req.Messages[1].Content, "Rubric:\nbe kind\n\nThe "+what+" to judge:\nhello"; got != want {
			t.Errorf("on %s: %q, want %q", on, got, want)
		}
	}
}

// TestJudgeLiveAsksAboutTheItemsRubric: the judge model is sent each
// item's rubric under "Rubric:" and told what it judges, and the verdict
// keeps that request, so a reader of the recording sees what was asked.
func TestJudgeLiveAsksAboutTheItemsRubric(t *testing.T) {
	s, o := parseRun(t, judgeScenario)
	var asked []string
	judge := func(string) (llm.Model, error) {
		return llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
			asked = append(asked, req.Messages[1].Content)
			return &llm.Response{Message: llm.AssistantMessage(`{"score": 1, "pass": true, "reason": "ok"}`)}, nil
		}), nil
	}
	verdicts, err := JudgeLive(context.Background(), s, o, &JudgeOptions{Model: judge, Default: "test/judge"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Rubric:\nnames the key\n\nThe final answer to judge:\n", "Rubric:\nis confident\n\nThe transcript to judge:\n"}
	if len(asked) != 2 || len(verdicts) != 2 {
		t.Fatalf("asked %q, verdicts %d; want two requests", asked, len(verdicts))
	}
	for i, w := range want {
		if !strings.HasPrefix(asked[i], w) {
			t.Errorf("request %d = %q, want it to start %q", i, asked[i], w)
		}
		if got := verdicts[i].Request.Messages[1].Content; !strings.HasPrefix(got, w) {
			t.Errorf("verdict %d keeps the request %q, want it to start %q", i, got, w)
		}
	}
}

// TestJudgeLiveWithoutJudgeItems: a scenario with no expect block, or no
// judge item in it, asks no judge, gives no verdicts and leaves the
// outcome unjudged.
func TestJudgeLiveWithoutJudgeItems(t *testing.T) {
	var calls atomic.Int32
	for _, src := range []string{
		"format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: [{response: {content: hello}}]\n",
		"format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: [{response: {content: hello}}]\nexpect: {final: {equals: hello}}\n",
	} {
		s, o := parseRun(t, src)
		v, err := JudgeLive(context.Background(), s, o, &JudgeOptions{Model: scriptedJudge("{}", &calls, nil), Default: "test/judge"})
		if v != nil || err != nil || o.Judged != nil || calls.Load() != 0 {
			t.Errorf("%s: %v, %v, Judged %v after %d calls; want nothing", src, v, err, o.Judged, calls.Load())
		}
	}
}

// TestJudgeLiveOfAJudgeThatDoesNotOpen: a judge model that cannot be
// opened is an error naming the item and the model, wrapping the cause.
func TestJudgeLiveOfAJudgeThatDoesNotOpen(t *testing.T) {
	s, o := parseRun(t, judgeScenario)
	refused := errors.New("no key for test")
	_, err := JudgeLive(context.Background(), s, o, &JudgeOptions{Default: "test/judge", Model: func(string) (llm.Model, error) { return nil, refused }})
	if want := "j.yaml:10: expect.judge[0]: opening the judge test/judge: no key for test"; !errors.Is(err, refused) || err.Error() != want || o.Judged != nil {
		t.Errorf("err = %v, Judged = %v; want %s", err, o.Judged, want)
	}
}

// TestParseVerdictSaysWhyAndQuotesAtMost200Bytes: an answer that holds no
// JSON is refused with the repair's reason; the answer is quoted whole up
// to 200 bytes, cut there with "..." when longer.
func TestParseVerdictSaysWhyAndQuotesAtMost200Bytes(t *testing.T) {
	_, _, _, err := parseVerdict("")
	if want := `the judge's answer is not a verdict: re-emit the call as valid JSON: the input holds no JSON value at line 1, column 1: ""`; err == nil || err.Error() != want {
		t.Errorf("an empty answer: %v; want %s", err, want)
	}
	for _, n := range []int{200, 201} {
		answer := strings.Repeat("y", n)
		quoted := answer
		if n > 200 {
			quoted = answer[:200] + "..."
		}
		_, _, _, err := parseVerdict(answer)
		if want := `want a JSON object {"score", "pass", "reason"}, got "` + quoted + `"`; err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("a %d-byte answer: %v; want it to end %s", n, err, want)
		}
	}
}
