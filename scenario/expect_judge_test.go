package scenario_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
)

// judged is a scenario body with a tape whose final text is "done".
const judged = "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: [{response: {content: done}}]\n"

func TestParseJudge(t *testing.T) {
	src := judged + `expect:
  judge:
    - {rubric: "says it is done"}
    - rubric: quotes the file
      model: openai/gpt-4.1-mini
      threshold: 0.75
      on: transcript
`
	s, err := scenario.Parse([]byte(src), "j.yaml", "j")
	if err != nil {
		t.Fatal(err)
	}
	js := s.Expect.Judges
	if len(js) != 2 {
		t.Fatalf("Judges = %+v, want 2 items", js)
	}
	if js[0].Rubric != "says it is done" || js[0].Model != "" || js[0].Threshold != nil || js[0].On != scenario.JudgeFinal || js[0].Line != 6 {
		t.Errorf("item 0 = %+v, want the rubric, no model, no threshold, on final, line 6", js[0])
	}
	if js[1].Model != "openai/gpt-4.1-mini" || js[1].Threshold == nil || *js[1].Threshold != 0.75 || js[1].On != scenario.JudgeTranscript || js[1].Line != 7 {
		t.Errorf("item 1 = %+v, want model, threshold 0.75, on transcript, line 7", js[1])
	}
	one, err := scenario.Parse([]byte(judged+"expect:\n  judge: {rubric: polite, threshold: 1}\n"), "j.yaml", "j")
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Expect.Judges) != 1 || *one.Expect.Judges[0].Threshold != 1 {
		t.Errorf("a single mapping: Judges = %+v, want one item with threshold 1", one.Expect.Judges)
	}
}

func TestParseJudgeErrors(t *testing.T) {
	cases := map[string]string{
		"  judge: polite\n":                                       "j.yaml:5: expect.judge: want a mapping",
		"  judge: []\n":                                           "j.yaml:5: expect.judge: empty",
		"  judge: [{model: openai/x}]\n":                          `j.yaml:5: expect.judge[0]: missing key "rubric"`,
		"  judge: {rubric: \"\"}\n":                               "j.yaml:5: expect.judge.rubric: empty",
		"  judge: {rubric: a, model: gpt}\n":                      "j.yaml:5: expect.judge.model:",
		"  judge: {rubric: a, threshold: 1.5}\n":                  "j.yaml:5: expect.judge.threshold: want a number from 0 to 1, got 1.5",
		"  judge: {rubric: a, threshold: high}\n":                 "j.yaml:5: expect.judge.threshold: want a number from 0 to 1",
		"  judge: {rubric: a, on: answer}\n":                      "j.yaml:5: expect.judge.on:",
		"  judge: {rubric: a, when: b}\n":                         "j.yaml:5: expect.judge: unknown key",
		"  judge:\n    - {rubric: a}\n    - {rubric: b, on: 3}\n": "j.yaml:7: expect.judge[1].on:",
	}
	for expect, want := range cases {
		_, err := scenario.Parse([]byte(judged+"expect:\n"+expect), "j.yaml", "j")
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("expect %q: Parse = %v, want %s...", expect, err, want)
		}
	}
}

// verdict is a recorded judge: section for the rubric "says it is done".
const verdict = `judge:
  - rubric: says it is done
    model: openai/judge
    on: final
    judged: done
    score: 0.9
    pass: true
    reason: it says done
`

func TestParseVerdicts(t *testing.T) {
	s, err := scenario.Parse([]byte(judged+verdict), "j.yaml", "j")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Verdicts) != 1 {
		t.Fatalf("Verdicts = %+v, want one", s.Verdicts)
	}
	v := s.Verdicts[0]
	if v.Rubric != "says it is done" || v.Model != "openai/judge" || v.On != "final" || v.Judged != "done" || v.Score != 0.9 || !v.Pass || v.Reason != "it says done" || v.Line != 5 {
		t.Errorf("verdict = %+v", v)
	}
	if got := s.ReplayTape().Verdicts; len(got) != 1 {
		t.Errorf("ReplayTape().Verdicts = %+v, want the verdict", got)
	}
	cases := map[string]string{
		"score: 0.9":             "score: 2",
		"pass: true":             "pass: yes please",
		"on: final":              "on: middle",
		"reason: it says done\n": "",
	}
	wants := []string{"j.yaml:9: judge[0].score: want a number from 0 to 1, got 2", "j.yaml:10: judge[0].pass: want true or false", "j.yaml:7: judge[0].on:", `j.yaml:5: judge[0]: missing required key "reason"`}
	i := 0
	for _, old := range []string{"score: 0.9", "pass: true", "on: final", "reason: it says done\n"} {
		src := judged + strings.Replace(verdict, old, cases[old], 1)
		if _, err := scenario.Parse([]byte(src), "j.yaml", "j"); err == nil || !strings.HasPrefix(err.Error(), wants[i]) {
			t.Errorf("%q replaced: Parse = %v, want %s...", old, err, wants[i])
		}
		i++
	}
}

func TestMatchVerdicts(t *testing.T) {
	src := judged + `expect:
  judge:
    - {rubric: says it is done}
    - {rubric: says it is done, model: openai/other}
    - {rubric: is polite}
` + verdict + `  - {rubric: was removed, model: openai/judge, on: final, judged: done, score: 1, pass: true, reason: r}
`
	s, err := scenario.Parse([]byte(src), "j.yaml", "j")
	if err != nil {
		t.Fatal(err)
	}
	paired, unpaired := s.MatchVerdicts(nil)
	if len(paired) != 3 || paired[0] != 0 || paired[1] != -1 || paired[2] != -1 {
		t.Errorf("paired = %v, want [0 -1 -1] (item 1 names another model)", paired)
	}
	if len(unpaired) != 1 || unpaired[0] != 1 {
		t.Errorf("unpaired = %v, want [1]", unpaired)
	}
	// Lint warns of both, at their lines.
	path := filepath.Join(t.TempDir(), "j.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, problems := scenario.Lint(path, nil)
	var got []string
	for _, p := range problems {
		got = append(got, strings.TrimPrefix(scenario.LintText(p), path))
	}
	// An unrecorded tape (none, or only user turns) has no verdicts yet:
	// no warning.
	for _, tape := range []string{"tape: [{response: {content: done}}]\n", "tape: [{user: hi}]\n"} {
		unrec := strings.Replace(src, "tape: [{response: {content: done}}]\n", tape, 1)
		unrec, _, _ = strings.Cut(unrec, "judge:\n  - rubric")
		if tape == "tape: [{response: {content: done}}]\n" {
			unrec = strings.Replace(unrec, tape, "", 1)
		}
		os.WriteFile(path, []byte(unrec), 0o644)
		if _, p := scenario.Lint(path, nil); len(p) != 0 {
			t.Errorf("unrecorded %q: Lint = %v, want no problem", tape, p)
		}
	}
	os.WriteFile(path, []byte(src), 0o644)
	_, problems = scenario.Lint(path, nil)
	got = nil
	for _, p := range problems {
		got = append(got, strings.TrimPrefix(scenario.LintText(p), path))
	}
	want := []string{
		":7: warning: expect.judge[1]: no verdict recorded",
		":8: warning: expect.judge[2]: no verdict recorded",
		":17: warning: judge[1]: no expect.judge item uses this verdict",
	}
	if len(got) != len(want) {
		t.Fatalf("Lint = %q, want %d warnings", got, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d = %q, want %s...", i, got[i], want[i])
		}
	}
}

// TestMatchVerdictsByModel: an expect.judge item that names its judge
// model takes the recorded verdict of that model, not an earlier one of
// another model for the same rubric.
func TestMatchVerdictsByModel(t *testing.T) {
	s := parseBody(t, `expect:
  judge: [{rubric: is kind, model: openai/a}]
judge:
  - {rubric: is kind, model: openai/b, on: final, judged: hello, score: 1, pass: true, reason: r}
  - {rubric: is kind, model: openai/a, on: final, judged: hello, score: 1, pass: true, reason: r}
`)
	paired, unpaired := s.MatchVerdicts(nil)
	if len(paired) != 1 || paired[0] != 1 || len(unpaired) != 1 || unpaired[0] != 0 {
		t.Errorf("MatchVerdicts = %v, %v; want [1], [0]", paired, unpaired)
	}
}

// TestMatchVerdictsWithARedactedRubric: a rubric naming a secret is
// recorded with the secret redacted; its verdict pairs with the item as
// replay compares text: a password written with characters no token
// holds only under a policy that knows it, a token-shaped key under any.
func TestMatchVerdictsWithARedactedRubric(t *testing.T) {
	const pw = "hunter2!&x#pw(1)"
	knows := redact.New(&redact.Options{SecretEnv: []string{"APP_PASSWORD"}, Getenv: func(string) string { return pw }})
	body := func(secret string) string {
		return `expect:
  judge: [{rubric: "never says ` + secret + `"}]
judge:
  - {rubric: "never says [REDACTED]", model: openai/a, on: final, judged: hello, score: 1, pass: true, reason: r}
`
	}
	for _, c := range []struct {
		name, secret string
		r            *redact.Redactor
		want         int
	}{
		{"password, its policy", pw, knows, 0},
		{"password, no policy", pw, nil, -1},
		{"key, no policy", "sk-proj-Lk9QmZ2xW7pRs4TuV8yNa3Bc6", nil, 0},
	} {
		paired, _ := parseBody(t, body(c.secret)).MatchVerdicts(c.r)
		if len(paired) != 1 || paired[0] != c.want {
			t.Errorf("%s: paired = %v, want [%d]", c.name, paired, c.want)
		}
	}
}
