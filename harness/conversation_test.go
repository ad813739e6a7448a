package harness

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// conversation is a scenario of two user turns; the tape starts with the
// first.
const conversation = `format: tapeloop/v1
setup:
  tools: [echo]
input:
  - {role: system, content: "Be brief."}
tape:
  - user: "Echo one."
  - response:
      tool_calls:
        - {name: echo, arguments: {n: 1}}
  - response: {content: "one"}
  - user: {content: "Now two.", name: mia}
  - response:
      tool_calls:
        - {name: echo, arguments: {n: 2}}
    request:
      last_message: {role: user, content: "Now two.", name: mia}
  - response: {content: "two"}
`

func parseScenario(t *testing.T, text string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Parse([]byte(text), "conv.yaml", "conv")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConversationReplay(t *testing.T) {
	s := parseScenario(t, conversation)
	o, err := Run(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Diverged || len(o.Unused) != 0 || o.Termination != "final_text" || o.Iterations != 4 || o.Final != "two" {
		t.Fatalf("outcome: diverged %v, unused %q, %s after %d model calls, final %q; want final_text after 4, %q",
			o.Diverged, o.Unused, o.Termination, o.Iterations, o.Final, "two")
	}
	golden, err := o.Golden(redact.Default())
	if err != nil {
		t.Fatal(err)
	}
	// The golden shows each user turn on the turn it starts; call IDs
	// generated in the second user turn go on counting.
	for _, want := range []string{
		"turns:\n  - turn: 1\n    user: Echo one.\n",
		"  - turn: 4\n    response:\n      content: two\n",
		"  - turn: 3\n    user:\n      content: Now two.\n      name: mia\n",
		"      - id: call_gen_2\n        name: echo\n",
	} {
		if !strings.Contains(string(golden), want) {
			t.Errorf("golden lacks %q:\n%s", want, golden)
		}
	}
	// The transcript is the tape as it happened.
	var got []string
	for _, e := range o.Transcript() {
		switch {
		case e.User != nil:
			got = append(got, "user "+e.User.Content)
		case len(e.Response.Message.ToolCalls) > 0:
			got = append(got, "call "+e.Response.Message.ToolCalls[0].Name)
		default:
			got = append(got, "text "+e.Response.Message.Content)
		}
	}
	want := []string{"user Echo one.", "call echo", "text one", "user Now two.", "call echo", "text two"}
	if !slices.Equal(got, want) {
		t.Errorf("Transcript = %q, want %q", got, want)
	}
}

// TestUnusedTapeEntriesFail: a run that ends before its tape fails the
// scenario, naming the first entry never served; an update says its
// golden is untouched (ErrNotUpdated) and writes none.
func TestUnusedTapeEntriesFail(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "unused.yaml")
	text := "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape:\n  - response: {content: hello}\n  - user: \"more\"\n  - response: {content: again}\n  - response: {content: never}\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	v := Verify(context.Background(), path, &VerifyOptions{Update: true})
	want := path + ": tape has 4 entries; the run used 3 (tape[3] at line 7 was never served)"
	if v.Err != nil || len(v.Failures) != 2 || !errors.Is(v.Failures[0], ErrNotUpdated) || v.Failures[1].Error() != want {
		t.Fatalf("failures %q (err %v), want the golden untouched and %q", v.Failures, v.Err, want)
	}
	if _, err := os.Stat(v.Golden); !errors.Is(err, fs.ErrNotExist) || v.Updated {
		t.Errorf("the update wrote %s (Updated %v, stat %v)", v.Golden, v.Updated, err)
	}
	if v := Verify(context.Background(), path, nil); len(v.Failures) == 0 || v.Failures[0].Error() != want {
		t.Errorf("replay failures %q, want the first %q", v.Failures, want)
	}
}

// TestUserTurnWhereTheModelIsAsked: a user turn after a response with tool
// calls diverges (the user speaks only after a final text).
func TestUserTurnWhereTheModelIsAsked(t *testing.T) {
	s := parseScenario(t, "format: tapeloop/v1\nsetup: {tools: [echo]}\ninput: [{role: user, content: hi}]\ntape:\n  - response:\n      tool_calls: [{name: echo, arguments: {}}]\n  - user: \"more\"\n")
	o, err := Run(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `model call failed: turn 2: replay: tape[1] at conv.yaml:7: request diverged from the recording: the loop asked the model, but tape[1] is a user turn; the user speaks only after a final text answer, and the request ends with tool message (echo call_gen_1) "{}"`
	if !o.Diverged || o.Error != want || len(o.Unused) != 0 {
		t.Fatalf("diverged %v, unused %q, error:\n got %s\nwant %s", o.Diverged, o.Unused, o.Error, want)
	}
}

// TestConversationScriptDrivesALiveRun: in a live run the tape's user turns
// still drive the conversation; a tape of only user turns is a script.
func TestConversationScriptDrivesALiveRun(t *testing.T) {
	s := parseScenario(t, "format: tapeloop/v1\ninput: [{role: system, content: sys}]\ntape:\n  - user: first\n  - user: second\n  - user: third\n")
	if got := s.UserTurns(); len(got) != 3 || got[2].Content != "third" || got[2].Role != llm.RoleUser {
		t.Fatalf("UserTurns = %+v", got)
	}
	var heard []string
	model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		last, _ := req.LastMessage()
		heard = append(heard, last.Content)
		return &llm.Response{Message: llm.AssistantMessage("re: " + last.Content)}, nil
	})
	o, err := Run(context.Background(), s, &RunOptions{Model: model})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(heard, []string{"first", "second", "third"}) || o.Final != "re: third" || o.Iterations != 3 || len(o.Unused) != 0 {
		t.Fatalf("the model heard %q; final %q after %d calls, unused %q", heard, o.Final, o.Iterations, o.Unused)
	}
	tr := o.Transcript()
	if len(tr) != 6 || tr[4].User == nil || tr[4].User.Content != "third" || tr[5].Response.Message.Content != "re: third" {
		t.Errorf("Transcript = %+v", tr)
	}
	if _, err := tape.EncodeEntries(tr); err != nil {
		t.Errorf("the transcript does not encode as a tape: %v", err)
	}
}

// TestLiveRunEndingEarlyReportsUnspokenTurns: a live run that ends before
// every user turn was spoken says so.
func TestLiveRunEndingEarlyReportsUnspokenTurns(t *testing.T) {
	s := parseScenario(t, "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape:\n  - response: {content: recorded}\n  - user: second\n")
	model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		return nil, context.DeadlineExceeded
	})
	o, err := Run(context.Background(), s, &RunOptions{Model: model})
	if err != nil {
		t.Fatal(err)
	}
	want := "conv.yaml: the run ended (model_error) before every user turn of the tape was spoken"
	if len(o.Unused) != 1 || o.Unused[0].Error() != want {
		t.Fatalf("Unused = %q, want %q", o.Unused, want)
	}
}

// TestUnusedRecordingsFail: an in_order recorded stand-in whose recordings
// the run did not all use fails the scenario, like unused tape entries.
func TestUnusedRecordingsFail(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "recordings.yaml")
	text := `format: tapeloop/v1
setup:
  tools:
    - name: book
      fixture: recorded
      with:
        mode: in_order
        results:
          - {arguments: {flight: SK1}, content: R1}
          - {arguments: {flight: SK1}, content: R2}
input: [{role: user, content: book}]
tape:
  - response:
      tool_calls: [{id: c1, name: book, arguments: {flight: SK1}}]
  - response: {content: booked R1}
`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	v := Verify(context.Background(), path, &VerifyOptions{Update: true})
	want := path + ":4: setup.tools[book]: recordings left unused: book has 2 recordings; the run used 1 (results[1] at line 10 never answered)"
	if v.Err != nil || len(v.Failures) != 1 || v.Failures[0].Error() != want {
		t.Fatalf("failures %q (err %v), want [%q]", v.Failures, v.Err, want)
	}
}
