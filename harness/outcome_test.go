package harness

import (
	"context"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// TestGoldenReadability pins the golden's shape: untouched files once by
// size and hash, deleted files as null, executed only when it differs from
// the arguments as a JSON value, each retry with its failure and backoff, and
// no empty response, final or workspace.
func TestGoldenReadability(t *testing.T) {
	s := parseScenario(t, `format: tapeloop/v1
setup:
  workspace:
    files: {keep.txt: "same\n", gone.txt: "bye\n", edit.txt: "old\n"}
  tools:
    - write_file
    - delete_file
    - calculator
    - name: fetch
      fixture: flaky
      with: {failures: 1, kind: transient, result: "ok"}
  loop:
    retry: {attempts: 2, backoff: 150ms}
input: [{role: user, content: go}]
tape:
  - response:
      tool_calls:
        - {id: c1, name: write_file, arguments: '{"path": "edit.txt", "content": "new\n"}'}
        - {id: c2, name: delete_file, arguments: '{"path":"gone.txt"}'}
        - {id: c3, name: calculator, arguments: '{"operation": "add", "a": "2", "b": 1.0}'}
        - {id: c4, name: fetch, arguments: {}}
  - response: {}
`)
	o, err := Run(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	golden, err := o.Golden(redact.Default())
	if err != nil {
		t.Fatal(err)
	}
	want := `name: conv
termination: final_text
iterations: 2
turns:
  - turn: 1
    calls:
      - id: c1
        name: write_file
        arguments: '{"path": "edit.txt", "content": "new\n"}'
        result: overwrote edit.txt (4 bytes)
        effects:
          - file: {op: modify, path: edit.txt, bytes: 4}
      - id: c2
        name: delete_file
        arguments: '{"path":"gone.txt"}'
        result: deleted gone.txt
        effects:
          - file: {op: delete, path: gone.txt, bytes: 0}
      - id: c3
        name: calculator
        arguments: '{"operation": "add", "a": "2", "b": 1.0}'
        executed: '{"a":2,"b":1.0,"operation":"add"}'
        coercions:
          - {path: /a, from: string, to: number}
        result: '3'
      - id: c4
        name: fetch
        arguments: '{}'
        retried:
          - {failure: transient, backoff: 150ms, result: 'error (transient): simulated transient failure 1 of 1'}
        result: ok
    diff: |
      diff --git a/edit.txt b/edit.txt
      --- a/edit.txt
      +++ b/edit.txt
      @@ -1 +1 @@
      -old
      +new
      diff --git a/gone.txt b/gone.txt
      deleted file mode 100644
      --- a/gone.txt
      +++ /dev/null
      @@ -1 +0,0 @@
      -bye
  - turn: 2
workspace:
  edit.txt: |
    new
  gone.txt: null
untouched:
  - keep.txt (5 bytes, sha256 a6328afc76e9db71)
`
	if string(golden) != want {
		t.Errorf("golden:\n%s\nwant:\n%s\ndiff:\n%s", golden, want, udiff.FirstHunk(want, string(golden)))
	}
}

func TestSameJSON(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[1,2]}`, `{"b": [1, 2.0], "a": 1}`, true},
		{`{"a":1}`, `{"a":"1"}`, false},
		{`{"a":1}`, `{"a":1,"b":null}`, false},
		{`{"a":1,}`, `{"a":1}`, false}, // broken JSON as received differs from what ran
	} {
		if got := jsonvalue.Same(tc.a, tc.b); got != tc.want {
			t.Errorf("jsonvalue.Same(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestWithUserTurnsRedactsAndKeepsFailedCalls: a live run's tape has each
// user turn before its model call, redacted when a Redactor is given and
// as spoken when not; a last user turn whose model call failed keeps the
// failed attempts after it.
func TestWithUserTurnsRedactsAndKeepsFailedCalls(t *testing.T) {
	const key = "sk-proj-Gd4QmZ2xW7pRs4TuV8yNa3Bc6"
	first := llm.UserMessage("my key is " + key)
	last := llm.UserMessage("and now?")
	o := &Outcome{Turns: []TurnOutcome{
		{Index: 1, User: &first, Response: &llm.Response{Message: llm.AssistantMessage("ok")}},
		{Index: 2, User: &last},
	}}
	recorded := []tape.Entry{
		{Response: &llm.Response{Message: llm.AssistantMessage("ok")}},
		{Error: "503 unavailable"},
	}
	for _, red := range []*redact.Redactor{nil, redact.Default()} {
		got := o.WithUserTurns(recorded, red)
		if len(got) != 4 || got[0].User == nil || got[1].Response == nil || got[2].User == nil || got[2].User.Content != "and now?" || got[3].Error != "503 unavailable" {
			t.Fatalf("redactor %v: entries %+v; want user, response, user, error", red != nil, got)
		}
		if redacted := !strings.Contains(got[0].User.Content, key); redacted != (red != nil) {
			t.Errorf("redactor %v: the first user turn is %q", red != nil, got[0].User.Content)
		}
	}
	if first.Content != "my key is "+key {
		t.Errorf("the outcome's user turn was changed: %q", first.Content)
	}
}

// TestFindCallWithoutARunRecord: FindCall on an outcome with no run record
// (Run nil) finds nothing and says the run has no record, by ID or by
// position.
func TestFindCallWithoutARunRecord(t *testing.T) {
	o := &Outcome{}
	for _, ref := range []string{"call_1", scenario.CallAt(1, 1)} {
		if c, problem := o.FindCall(ref); c != nil || problem != "the run has no record" {
			t.Errorf("FindCall(%q) = %v, %q; want nil and that the run has no record", ref, c, problem)
		}
	}
}
