package bridge_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/eval"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// TestBridgedJudgeReplay: a bridged agent's expect.judge item fails until
// a verdict is recorded, passes on the recorded verdict, and fails closed
// once the final text on the tape is edited.
func TestBridgedJudgeReplay(t *testing.T) {
	text := notesScenario + "  judge: {rubric: says it is done, model: test/judge}\n"
	path := record(t, text, newNotesAgent().agentFunc(), notesScript())
	verify := func() *harness.Verdict {
		v := verifyWith(t.Context(), load(t, path), newNotesAgent().agentFunc(), &harness.VerifyOptions{Update: true})
		if v.Err != nil {
			t.Fatal(v.Err)
		}
		return v
	}
	v := verify()
	if !strings.Contains(fmt.Sprint(v.Failure()), "expect.judge[0]: no verdict recorded for this rubric") {
		t.Fatalf("no verdict: failures %q", v.Failures)
	}
	s := load(t, path)
	verdicts, err := eval.JudgeLive(context.Background(), s, v.Outcome, &eval.JudgeOptions{Model: func(string) (llm.Model, error) {
		return llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
			return &llm.Response{Message: llm.AssistantMessage(`{"score": 1, "pass": true, "reason": "it says so"}`)}, nil
		}), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	node, err := tape.EncodeVerdicts(verdicts)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(path)
	out, err := scenario.SetValue(src, path, []string{"judge"}, node)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, out, 0o644)
	if v := verify(); !v.Passed() {
		t.Fatalf("with the verdict recorded: failures %q", v.Failures)
	}
	final := v.Outcome.Final
	edited := strings.Replace(string(out), "content: '"+final+"'", "content: '"+final+" And more.'", 1)
	if edited == string(out) {
		t.Fatalf("no final text %q to edit in\n%s", final, out)
	}
	os.WriteFile(path, []byte(edited), 0o644)
	v = verifyWith(t.Context(), load(t, path), newNotesAgent().agentFunc(), nil)
	if !strings.Contains(fmt.Sprint(v.Failure()), ": judge[0]: the judged text changed: re-record the verdict") {
		t.Errorf("edited final text: failures %q", v.Failures)
	}
}
