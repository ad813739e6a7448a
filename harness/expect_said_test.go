package harness

import (
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

// TestFailureQuotesA200ByteTextWhole: a failure message quotes a text of
// up to 200 bytes whole, and cuts a longer one there with "...".
func TestFailureQuotesA200ByteTextWhole(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\nexpect:\n  said: [{contains: zzz}]\n"), "s.yaml", "s")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{200, 201} {
		text := strings.Repeat("a", n)
		o := &Outcome{Run: &agent.RunResult{Messages: []llm.Message{llm.AssistantMessage(text)}}}
		fs := Failures(s, o)
		want := `"` + text[:200] + `"`
		if n > 200 {
			want = `"` + text[:200] + `..."`
		}
		if len(fs) != 1 || !strings.HasSuffix(fs[0].Error(), want) {
			t.Errorf("a %d-byte text: failures %v, want the message to end with %s", n, fs, want)
		}
	}
}

// TestExpectSaidWithNoAssistantText: a said item against a run that
// wrote no assistant text says so, instead of listing none.
func TestExpectSaidWithNoAssistantText(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\nexpect:\n  said: [{contains: zzz}]\n"), "s.yaml", "s")
	if err != nil {
		t.Fatal(err)
	}
	fs := Failures(s, &Outcome{Run: &agent.RunResult{}})
	if len(fs) != 1 || !strings.HasSuffix(fs[0].Error(), `expected an assistant message to contain "zzz", the run has no assistant text`) {
		t.Errorf("failures %v; want the run to have no assistant text", fs)
	}
}

// TestExpectSaidSaysWhatWasExpected: a said item no assistant text holds
// fails saying what it asked for, in the words of its key (a pattern as
// written, without the case flag that ignore_case adds to it), at its line.
func TestExpectSaidSaysWhatWasExpected(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\nexpect:\n  said:\n"+
		"    - {equals: Done.}\n    - {contains: done, ignore_case: true}\n    - {matches: '^Done\\.$'}\n    - {matches: '^done', ignore_case: true}\n"), "s.yaml", "s")
	if err != nil {
		t.Fatal(err)
	}
	fs := Failures(s, &Outcome{Run: &agent.RunResult{Messages: []llm.Message{llm.AssistantMessage("Not yet.")}}})
	const among = `, found none among 1: "Not yet."`
	want := []string{
		`s.yaml:6: expect.said[0]: expected an assistant message to equal "Done."` + among,
		`s.yaml:7: expect.said[1]: expected an assistant message to contain "done" (ignoring case)` + among,
		`s.yaml:8: expect.said[2]: expected an assistant message to match "^Done\\.$"` + among,
		`s.yaml:9: expect.said[3]: expected an assistant message to match "^done" (ignoring case)` + among,
	}
	if len(fs) != len(want) {
		t.Fatalf("failures %v, want %d", fs, len(want))
	}
	for i, f := range fs {
		if f.Error() != want[i] {
			t.Errorf("failure %d:\n got %s\nwant %s", i, f.Error(), want[i])
		}
	}
}
