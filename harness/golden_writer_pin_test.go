package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
)

// pinOutcomes are small outcomes covering each section of a golden and each
// scalar style, for TestGoldenPin.
func pinOutcomes() map[string]*Outcome {
	return map[string]*Outcome{
		"turns": {
			Name: "pin turns", Termination: "error", Error: "model: 503 unavailable", Iterations: 3,
			ModelRetries: []ModelRetryOutcome{
				{Turn: 1, Attempt: 1, Kind: "server", Backoff: 1500 * time.Millisecond, Error: "503: try again"},
				{Turn: 2, Attempt: 2, Backoff: 2 * time.Second, Error: "line one\nline two"},
			},
			Turns: []TurnOutcome{{
				Index:    1,
				User:     &llm.Message{Content: "Please add 2 and 3."},
				Response: &llm.Response{Message: llm.Message{Content: "Adding."}, FinishReason: "tool_calls"},
				Envelope: "xml",
				Calls: testCalls(testCall{
					ID: "c1", Name: "calculator", Arguments: `{"a": 2, "b": 3,}`, Executed: `{"a":2,"b":3}`,
					Repairs:   []string{"trailing_comma", "a, b"},
					Coercions: []tools.Coercion{{Path: "/a", From: `"2"`, To: "2"}},
					Retries:   []RetryOutcome{{Failure: "timeout", Result: "timed out\nafter 1s", Backoff: 500 * time.Millisecond}},
					Memoized:  true, Async: true, Result: "5",
					Effects: []tools.Effect{
						{File: &tools.FileEffect{Op: "rename", Path: "b.txt", From: "a.txt", Bytes: 12}},
						{Process: &tools.ProcessEffect{Command: "make test", ExitCode: 2, Background: true, TimedOut: true}},
					},
				}, testCall{ID: "c2", Name: "abacus", Arguments: "{}", Failure: "not_found", Result: "error: no tool named \"abacus\""}),
				Diff: "--- a.txt\n+++ b.txt\n@@ -1 +1 @@\n-old\n+new\n",
			}, {
				Index:     2,
				User:      &llm.Message{Content: "And now?", Name: "alice"},
				Delivered: []AsyncOutcome{{ID: "c1", Name: "calculator", Result: "5"}},
			}, {Index: 3, User: &llm.Message{Content: "last words"}}},
			Final: "It is 5.\n",
		},
		"workspace and state": {
			Name: "pin state", Termination: "final_text", Iterations: 0,
			Workspace: []FileState{
				{Path: "a.txt", Content: "one\ntwo\n"},
				{Path: "b.txt", Untouched: true, Size: 3, Hash: "0123456789abcdef"},
				{Path: "d\nir/c.txt", Content: "trailing space \nhere"},
				{Path: "e.txt", Content: ""},
			},
			Deleted: []string{"b.old", "z.txt"},
			State: map[string]any{
				"shop": map[string]any{
					"orders": []any{
						map[string]any{"id": 1.0, "paid": true, "total": 9.5, "note": nil},
						[]any{1e20, 1e21, 2.5e-7, []any{}},
					},
					"empty":                  map[string]any{},
					"tags":                   []any{"yes", "123", "", "a: b", "- x"},
					"multi\nline key":        []any{"x"},
					strings.Repeat("k", 130): map[string]any{"v": "w"},
					"true":                   "~",
				},
				"empty world": map[string]any{},
			},
		},
		"scalars": {
			Name: "  leading and trailing  ", Termination: "null", Iterations: 1,
			Turns: []TurnOutcome{{Index: 1, Calls: testCalls(testCall{
				ID: "#1", Name: "it's", Arguments: "\"quoted\"\n", Result: "tab\there",
				Repairs: []string{"", "null", "x, y", "{z}"},
			})}},
			Final: "\n\nstarts with blank lines and keeps them\n\n",
			State: map[string]any{"w": []any{
				"ctrl\x01\x1b", "smile \U0001F600", "\ufeffbom", "nbsp\u00a0", "sep\u2028", "cr\r\n",
				"\tindented\nblock", " space first\nline", "crlf\r\nend", "kept\n\n", "---", "2001-12-14", "0x1F", ".5", "1_000",
				"é ü", "\xff\xfe",
			}},
		},
	}
}

// TestGoldenPin pins the whole text the golden writer writes for
// pinOutcomes (each written by the code, read, and pasted here), and checks
// it by property too (checkGolden).
func TestGoldenPin(t *testing.T) {
	want := map[string]string{
		"turns": `name: pin turns
termination: error
error: 'model: 503 unavailable'
iterations: 3
model_retries:
  - turn: 1
    attempt: 1
    kind: server
    backoff: 1.5s
    error: '503: try again'
  - turn: 2
    attempt: 2
    backoff: 2s
    error: |-
      line one
      line two
turns:
  - turn: 1
    user: Please add 2 and 3.
    response:
      content: Adding.
      finish_reason: tool_calls
    extracted_from: xml
    calls:
      - id: c1
        name: calculator
        arguments: '{"a": 2, "b": 3,}'
        executed: '{"a":2,"b":3}'
        repairs: [trailing_comma, 'a, b']
        coercions:
          - {path: /a, from: '"2"', to: '2'}
        retried:
          - {failure: timeout, backoff: 500ms, result: "timed out\nafter 1s"}
        memoized: true
        async: true
        result: '5'
        effects:
          - file: {op: rename, path: b.txt, from: a.txt, bytes: 12}
          - process: {command: make test, exit_code: 2, background: true, timed_out: true}
      - id: c2
        name: abacus
        arguments: '{}'
        failure: not_found
        result: 'error: no tool named "abacus"'
    diff: |
      --- a.txt
      +++ b.txt
      @@ -1 +1 @@
      -old
      +new
  - turn: 2
    user:
      content: And now?
      name: alice
    async_results:
      - id: c1
        name: calculator
        result: '5'
  - turn: 3
    user: last words
final: |
  It is 5.
`,
		"workspace and state": `name: pin state
termination: final_text
iterations: 0
turns: []
workspace:
  a.txt: |
    one
    two
  b.old: null
  "d\nir/c.txt": |-
    trailing space 
    here
  e.txt: ''
  z.txt: null
untouched:
  - b.txt (3 bytes, sha256 0123456789abcdef)
state:
  empty world: {}
  shop:
    empty: {}
    kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk:
      v: w
    "multi\nline key":
      - x
    orders:
      - id: 1
        note: null
        paid: true
        total: 9.5
      - - !!float 100000000000000000000
        - 1e+21
        - 2.5e-7
        - []
    tags:
      - 'yes'
      - '123'
      - ''
      - 'a: b'
      - '- x'
    'true': '~'
`,
		"scalars": `name: '  leading and trailing  '
termination: 'null'
iterations: 1
turns:
  - turn: 1
    calls:
      - id: '#1'
        name: it's
        arguments: |
          "quoted"
        repairs: ['', 'null', 'x, y', '{z}']
        result: "tab\there"
final: |+


  starts with blank lines and keeps them

state:
  w:
    - "ctrl\x01\x1b"
    - smile 😀
    - "\ufeffbom"
    - "nbsp\u00a0"
    - "sep\u2028"
    - "cr\r\n"
    - |-2
      	indented
      block
    - |-2
       space first
      line
    - "crlf\r\nend"
    - |+
      kept

    - '---'
    - '2001-12-14'
    - '0x1F'
    - '.5'
    - '1_000'
    - é ü
    - !!binary //4=
`,
	}
	for name, o := range pinOutcomes() {
		got, err := o.writeGolden()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if string(got) != want[name] {
			t.Errorf("%s: the golden differs from the pinned text at %s", name, udiff.FirstHunk(want[name], string(got)))
		}
		checkGolden(t, o)
	}
}
