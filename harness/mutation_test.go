package harness

import (
	"errors"
	"strconv"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// TestCheckerNewTakesADocument: a with: node handed to a Checker as a
// whole parsed document (yaml.Unmarshal into a yaml.Node) is configured
// from the mapping it holds.
func TestCheckerNewTakesADocument(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("text: done\n"), &doc); err != nil {
		t.Fatal(err)
	}
	check, err := finalIsChecker.New(&doc)
	if err != nil {
		t.Fatalf("New(a document) = %v", err)
	}
	if err := check(&Outcome{Final: "done"}); err != nil {
		t.Errorf("final done against with.text done: %v", err)
	}
	if err := check(&Outcome{Final: "other"}); err == nil {
		t.Error("final other against with.text done passed")
	}
}

// TestCheckConfigErrorWithoutLine: a check whose New reports a bad with:
// without a line of its own is reported at the expect.check item's line.
func TestCheckConfigErrorWithoutLine(t *testing.T) {
	strict := &Checker{Name: "strict", New: func(*yaml.Node) (func(*Outcome) error, error) {
		return nil, &toolkit.ConfigError{Err: errors.New("bad option")}
	}}
	s, _, line := checkScenario(t, "  check: {name: strict}\n")
	err := Validate(s, &RunOptions{Checks: []*Checker{strict}})
	if want := "check.yaml:" + strconv.Itoa(line) + ": expect.check[strict].with: bad option"; err == nil || err.Error() != want {
		t.Errorf("Validate = %v, want %s", err, want)
	}
}
