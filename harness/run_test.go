package harness

import (
	"context"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/fixtures"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// TestUnknownToolListsTheFixtures: naming no known tool, with no tools
// of your own, lists the fixtures alone.
func TestUnknownToolListsTheFixtures(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\nsetup:\n  tools: [abacus]\ninput: [{role: user, content: hi}]\ntape: []\n"), "u.yaml", "u")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), s, nil)
	if err == nil || !strings.HasSuffix(err.Error(), `unknown tool "abacus" (known: fixtures `+strings.Join(fixtures.Names(), ", ")+")") {
		t.Errorf("Run = %v, want the fixtures listed alone", err)
	}
}

// TestFixturesSeeTheLoopsIteration: a tool unavailable until iteration 2
// refuses the call of the first turn and answers the call of the second:
// fixtures see the loop's iteration advance once per turn.
func TestFixturesSeeTheLoopsIteration(t *testing.T) {
	s, err := scenario.Parse([]byte(`format: tapeloop/v1
setup:
  tools:
    - {name: search, fixture: unavailable, with: {reason: rebuilding, until_iteration: 2, result: found}}
input: [{role: user, content: find it}]
tape:
  - response: {tool_calls: [{id: c1, name: search, arguments: {}}]}
  - response: {tool_calls: [{id: c2, name: search, arguments: {}}]}
  - response: {content: done}
`), "it.yaml", "it")
	if err != nil {
		t.Fatal(err)
	}
	o, err := Run(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Turns) != 3 || len(o.Turns[0].Calls) != 1 || len(o.Turns[1].Calls) != 1 {
		t.Fatalf("turns %+v, want 3 with a call in each of the first two", o.Turns)
	}
	if c := o.Turns[0].Calls[0]; c.Failure() != tools.KindUnavailable || !strings.Contains(c.Result(), "rebuilding") {
		t.Errorf("turn 1: %s %q, want unavailable: rebuilding", c.Failure(), c.Result())
	}
	if c := o.Turns[1].Calls[0]; c.Failure() != "" || c.Result() != "found" {
		t.Errorf("turn 2: %s %q, want found", c.Failure(), c.Result())
	}
}

// TestSetUpPerturbsAndTagsStandIns: a non-zero Perturb wraps every tool
// and zero leaves them as built; a recorded fixture's tool, and only it,
// is registered as a stand-in that an MCP server's tool may replace.
func TestSetUpPerturbsAndTagsStandIns(t *testing.T) {
	s, err := scenario.Parse([]byte(`format: tapeloop/v1
setup:
  tools:
    - calculator
    - name: book
      fixture: recorded
      with:
        results:
          - {arguments: {flight: SK1}, content: R1}
input: [{role: user, content: hi}]
tape: []
`), "set.yaml", "set")
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{0, 7} {
		_, reg, err := setUp(s, &toolkit.Env{}, &RunOptions{Perturb: seed})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"calculator", "book"} {
			tool, ok := reg.Lookup(name)
			if _, wrapped := tool.(*perturbed); !ok || wrapped != (seed != 0) {
				t.Errorf("Perturb %d: %s is %T, want it wrapped only for a non-zero Perturb", seed, name, tool)
			}
		}
		if n := reg.RemoveProvider(fixtures.StandInProvider); n != 1 {
			t.Errorf("Perturb %d: %d stand-ins, want 1", seed, n)
		}
		if _, ok := reg.Lookup("book"); ok {
			t.Errorf("Perturb %d: the recorded book is not a stand-in", seed)
		}
		if _, ok := reg.Lookup("calculator"); !ok {
			t.Errorf("Perturb %d: calculator was taken for a stand-in", seed)
		}
	}
}
