package harness

import (
	"context"
	"testing"
)

// demoScenario exercises every matcher: a repaired write, a tool retried
// twice, a validation failure and a deletion.
const demoScenario = `format: tapeloop/v1
name: matchers/demo
setup:
  workspace:
    files:
      notes.txt: "hello\n"
      old.txt: "bye\n"
  tools:
    - write_file
    - delete_file
    - calculator
    - name: fetch_weather
      fixture: flaky
      with: {failures: 2, kind: transient, result: "sunny, 21C"}
  loop:
    retry: {attempts: 3, backoff: 100ms}
input:
  - {role: user, content: "go"}
tape:
  - response:
      tool_calls:
        - {id: call_1, name: write_file, arguments: '{"path": "notes.txt", "content": "hello\nworld\n",}'}
        - {id: call_2, name: fetch_weather, arguments: {}}
        - {id: call_3, name: calculator, arguments: {operation: divide, a: 1, b: 0}}
        - {id: call_4, name: delete_file, arguments: {path: old.txt}}
  - response:
      content: done
      finish_reason: stop
`

// runInline parses and runs a scenario given as text.
func runInline(t testing.TB, text string) *Outcome {
	t.Helper()
	s, err := Parse([]byte(text), "inline.yaml", "inline")
	if err != nil {
		t.Fatal(err)
	}
	o, err := s.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return o
}
