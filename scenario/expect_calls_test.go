package scenario_test

import (
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
)

// TestExpectCallsListAsMapping: expect.calls.list written as a mapping of
// tool to arguments is refused as not a list, not as the arguments' keys.
func TestExpectCallsListAsMapping(t *testing.T) {
	checkParseErrors(t, map[string]string{
		"expect:\n  calls:\n    list:\n      read_file: {path: a.txt}\n": "s.yaml:7: expect.calls.list: want a sequence",
	})
}

// TestExpectCallsDecoded: expect.calls keeps match (exact when absent),
// only, failed: false and each list item: a bare name, or a name with
// arguments given as a mapping or as a JSON string, partial or whole.
func TestExpectCallsDecoded(t *testing.T) {
	s := parseBody(t, `expect:
  calls:
    only: [read_file, write_file, search]
    failed: false
    list:
      - read_file
      - {name: write_file, arguments: {path: a.txt}, partial: true}
      - {name: search, arguments: '{"q": "x"}'}
`)
	c := s.Expect.Calls
	if c == nil || c.Match != scenario.MatchExact || !c.SkipFailed || strings.Join(c.Only, ",") != "read_file,write_file,search" || len(c.List) != 3 {
		t.Fatalf("expect.calls = %+v; want match exact, failed: false, three tools in only and three items", c)
	}
	for i, want := range []string{"read_file (any arguments)", `write_file {"path":"a.txt",…}`, `search {"q":"x"}`} {
		if got := c.List[i].String(); got != want {
			t.Errorf("list[%d] = %s, want %s", i, got, want)
		}
	}
	if s := parseBody(t, "expect:\n  calls: {match: in_order, list: []}\n"); s.Expect.Calls.Match != scenario.MatchInOrder || s.Expect.Calls.SkipFailed || s.Expect.Calls.List == nil {
		t.Errorf("match: in_order, list: [] = %+v", s.Expect.Calls)
	}
}

// TestExpectCallsErrors: each malformed expect.calls names its line and key.
func TestExpectCallsErrors(t *testing.T) {
	checkParseErrors(t, map[string]string{
		"expect:\n  calls: {failed: true, list: []}\n":                             "s.yaml:5: expect.calls.failed: failed: true is the default",
		"expect:\n  calls: {list: read_file}\n":                                    "s.yaml:5: expect.calls.list: want a sequence",
		"expect:\n  calls: {list: [{arguments: {a: 1}}]}\n":                        `s.yaml:5: expect.calls.list[0]: missing key "name"`,
		"expect:\n  calls: {list: [{name: a, partial: true}]}\n":                   "s.yaml:5: expect.calls.list[0]: partial: true needs arguments",
		"expect:\n  calls: {list: [{name: a, arguments: 'not json'}]}\n":           "s.yaml:5: expect.calls.list[0].arguments: not a JSON value",
		"expect:\n  calls: {list: [{name: a, argumnets: {}}]}\n":                   `s.yaml:5: expect.calls.list[0]: unknown key "argumnets"`,
		"expect:\n  calls: {only: [a]}\n":                                          `s.yaml:5: expect.calls: missing key "list"`,
		"expect:\n  calls: {match: any, list: []}\n":                               `s.yaml:5: expect.calls.match: unknown value "any"`,
		"expect:\n  calls:\n    list:\n      - a\n      - {name: b, partial: 1}\n": "s.yaml:8: expect.calls.list[1].partial:",
	})
}
