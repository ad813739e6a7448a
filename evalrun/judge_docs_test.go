package evalrun

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/eval"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// TestScoringDocJudge checks docs/scoring.md's judge section against the
// code: the prompt and the user message are the code's, word for word; the
// complete example's judge: section is what JudgeLive records for it; it
// lints with no problem and replays; a higher threshold and an edited
// answer fail with the messages the doc quotes.
func TestScoringDocJudge(t *testing.T) {
	data, err := os.ReadFile(scoringDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	if !strings.Contains(doc, "```text\n"+eval.JudgePrompt+"\n```") {
		t.Errorf("%s does not quote eval.JudgePrompt word for word:\n%s", scoringDoc, eval.JudgePrompt)
	}
	if user := fmt.Sprintf(eval.JudgeUserFormat, "RUBRIC", "WHAT", "TEXT"); !strings.Contains(doc, "```text\n"+user+"\n```") {
		t.Errorf("%s does not quote eval.JudgeUserFormat:\n%s", scoringDoc, user)
	}
	var example string
	for _, b := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(doc, -1) {
		if strings.Contains(b[1], "\njudge:\n") {
			example = b[1]
		}
	}
	if example == "" {
		t.Fatalf("%s has no yaml example with a judge: section", scoringDoc)
	}
	dir := filepath.Join(t.TempDir(), "scenarios")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "refund.yaml")
	if err := os.WriteFile(path, []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}

	// The section is what the code records for the judge's answer.
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	v := s.Verdicts[0]
	answer := fmt.Sprintf(`{"score": %v, "pass": %v, "reason": %q}`, v.Score, v.Pass, v.Reason)
	unjudged, _, _ := strings.Cut(example, "\njudge:\n")
	us, err := scenario.Parse([]byte(unjudged), path, "refund")
	if err != nil {
		t.Fatal(err)
	}
	o, err := harness.Run(context.Background(), us, nil)
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := eval.JudgeLive(context.Background(), us, o, &eval.JudgeOptions{Model: func(string) (llm.Model, error) {
		return llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
			return &llm.Response{Message: llm.AssistantMessage(answer)}, nil
		}), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	node, err := tape.EncodeVerdicts(recorded)
	if err != nil {
		t.Fatal(err)
	}
	want, err := scenario.SetValue([]byte(unjudged), path, []string{"judge"}, node)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != example {
		t.Errorf("the doc's example is not what record writes:\n%q\nwant\n%q", example, want)
	}

	main := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := Main(context.Background(), args, &out, &errb, &Options{Stdin: strings.NewReader("")})
		return code, out.String() + errb.String()
	}
	if code, out := main("lint", path); code != exitOK || strings.Contains(out, "warning") {
		t.Errorf("lint: exit %d\n%s", code, out)
	}
	if code, out := main("replay", "--update", dir); code != exitOK {
		t.Errorf("replay: exit %d\n%s", code, out)
	}
	flat := strings.Join(strings.Fields(doc), " ")
	os.WriteFile(path, []byte(strings.Replace(example, "threshold: 0.8", "threshold: 0.95", 1)), 0o644)
	quoted := "expect.judge[0]: the judge (openai/gpt-4.1-mini) scored 0.9, below the threshold 0.95: It apologises and names order A100."
	if code, out := main("replay", dir); code != exitFailed || !strings.Contains(out, quoted) || !strings.Contains(flat, quoted) {
		t.Errorf("threshold 0.95: exit %d, want %d and %q (quoted by the doc):\n%s", code, exitFailed, quoted, out)
	}
	os.WriteFile(path, []byte(strings.Replace(example, `content: "I am sorry that`, `content: "Sorry that`, 1)), 0o644)
	code, out := main("replay", dir)
	line := regexp.MustCompile("(?m)^.*the judged text changed: .*$").FindString(out)
	quoted = strings.ReplaceAll(strings.TrimSpace(line), path, "refund.yaml")
	if code != exitFailed || line == "" || !strings.Contains(doc, "```text\n"+quoted+"\n```") {
		t.Errorf("edited answer: exit %d, the doc does not quote\n%s\nin:\n%s", code, quoted, out)
	}
}
