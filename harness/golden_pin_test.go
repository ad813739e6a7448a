package harness

import (
	"context"
	"testing"

	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/redact"
)

// TestGoldenOfASmallScenario pins the whole golden of a small scenario for
// what TestGoldenReadability leaves out: a repaired call with its repairs, a
// failed call, and the final text.
func TestGoldenOfASmallScenario(t *testing.T) {
	s := parseScenario(t, `format: tapeloop/v1
setup:
  tools: [calculator]
input: [{role: user, content: "What is 2+3?"}]
tape:
  - response:
      tool_calls:
        - {id: c1, name: calculator, arguments: '{"operation": "add", "a": 2, "b": 3,}'}
        - {id: c2, name: abacus, arguments: '{}'}
  - response: {content: "2+3 is 5."}
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
        name: calculator
        arguments: '{"operation": "add", "a": 2, "b": 3,}'
        executed: '{"a":2,"b":3,"operation":"add"}'
        repairs: [trailing_comma]
        result: '5'
      - id: c2
        name: abacus
        arguments: '{}'
        failure: not_found
        result: 'error (not_found): no tool named "abacus"; available tools: calculator'
  - turn: 2
    response:
      content: 2+3 is 5.
final: 2+3 is 5.
`
	if string(golden) != want {
		t.Errorf("golden:\n%s\nwant:\n%s\ndiff:\n%s", golden, want, udiff.FirstHunk(want, string(golden)))
	}
}
