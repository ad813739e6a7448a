package scenario_test

import (
	"fmt"

	"github.com/tapeloop/tapeloop/scenario"
)

// ExampleParse decodes a scenario, and shows the error a misspelt key
// gives: file, line and key.
func ExampleParse() {
	s, err := scenario.Parse([]byte(`format: tapeloop/v1
tags: [files]
setup:
  tools: [read_file]
input: [{role: user, content: "What does notes.txt say?"}]
tape:
  - response: {content: "It says hello."}
expect:
  final: {contains: hello}
`), "scenarios/notes.yaml", "notes")
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Name, s.Tags, s.Setup.Tools[0].Name, len(s.Tape), s.Expect.Line("final"))

	_, err = scenario.Parse([]byte("format: tapeloop/v1\nsetpu: {}\ninput: []\ntape: []\n"), "bad.yaml", "bad")
	fmt.Println(err)
	// Output:
	// notes [files] read_file 1 9
	// bad.yaml:2: unknown key "setpu" (want format, name, description, tags, setup, input, offered, tape, expect, faults, judge)
}
