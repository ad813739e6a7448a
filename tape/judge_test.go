package tape_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

func TestVerdictsRoundTrip(t *testing.T) {
	tp := &tape.Tape{
		Entries: []tape.Entry{{Response: &llm.Response{Message: llm.AssistantMessage("done")}}},
		Verdicts: []tape.Verdict{{
			Rubric: "says it is done", Model: "openai/judge", On: "final", Judged: "done\nand more",
			Score: 0.25, Pass: false, Reason: "half",
			Request: &tape.RequestSummary{Messages: []llm.Message{llm.SystemMessage("grade"), llm.UserMessage("Rubric: says it is done")}},
		}},
	}
	var b bytes.Buffer
	if err := tape.Encode(&b, tp); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "judge:\n  - rubric: says it is done\n") || !strings.Contains(b.String(), "score: 0.25\n") {
		t.Fatalf("encoded:\n%s\nwant a judge: section with the score", b.String())
	}
	back, err := tape.Decode(bytes.NewReader(b.Bytes()), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Verdicts) != 1 {
		t.Fatalf("decoded verdicts = %+v", back.Verdicts)
	}
	v := back.Verdicts[0]
	if v.Judged != "done\nand more" || v.Score != 0.25 || v.Pass || v.Reason != "half" || v.Request == nil || len(v.Request.Messages) != 2 || v.Line == 0 {
		t.Errorf("decoded verdict = %+v", v)
	}
	var again bytes.Buffer
	if err := tape.Encode(&again, back); err != nil {
		t.Fatal(err)
	}
	if again.String() != b.String() {
		t.Errorf("encoding the decoded tape changed it:\n%s\nwas\n%s", again.String(), b.String())
	}
}

// TestVerdictPassDecoded: a recorded verdict's pass: true reads back as a
// pass.
func TestVerdictPassDecoded(t *testing.T) {
	tp, err := tape.Decode(strings.NewReader("format: tapeloop/v1\ntape:\n  - response: {content: done}\njudge:\n  - {rubric: says it is done, model: openai/judge, on: final, judged: done, score: 1, pass: true, reason: it does}\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(tp.Verdicts) != 1 || !tp.Verdicts[0].Pass || tp.Verdicts[0].Score != 1 {
		t.Errorf("verdicts = %+v; want one that passed with score 1", tp.Verdicts)
	}
}
