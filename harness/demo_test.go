package harness

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
)

// demoScenario exercises every matcher: a repaired write, a tool retried
// twice, a validation failure and a deletion. ginkgoharness's tests read it
// too.
var demoScenario = readTestdata("matchers-demo.yaml")

// readTestdata returns a file of testdata/, panicking when it is missing
// (the tests cannot run without it).
func readTestdata(name string) string {
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return string(data)
}

// runInline parses and runs a scenario given as text.
func runInline(t testing.TB, text string) *Outcome {
	t.Helper()
	s, err := scenario.Parse([]byte(text), "inline.yaml", "inline")
	if err != nil {
		t.Fatal(err)
	}
	o, err := Run(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return o
}
