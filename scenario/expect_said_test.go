package scenario_test

import (
	"testing"
)

// TestExpectSaidDecoded: each expect.said item holds one text matcher, and
// ignore_case makes a pattern case-insensitive.
func TestExpectSaidDecoded(t *testing.T) {
	s := parseBody(t, "expect:\n  said:\n    - {contains: Done, ignore_case: true}\n    - {matches: '^ok', ignore_case: true}\n    - {equals: exact}\n    - {matches: '^ok'}\n")
	said := s.Expect.Said
	if len(said) != 4 || *said[0].Contains != "Done" || !said[0].IgnoreCase || said[0].Line != 6 {
		t.Fatalf("said = %+v", said)
	}
	if said[1].Matches.String() != "(?i)^ok" || !said[1].Matches.MatchString("OK then") {
		t.Errorf("said[1].Matches = %v; want (?i)^ok", said[1].Matches)
	}
	if *said[2].Equals != "exact" || said[2].IgnoreCase || said[3].Matches.String() != "^ok" {
		t.Errorf("said[2], said[3] = %+v, %+v", said[2], said[3])
	}
	checkParseErrors(t, map[string]string{
		"expect:\n  said: [done]\n":                          "s.yaml:5: expect.said[0]: want a mapping",
		"expect:\n  said: [{equals: a, contains: b}]\n":      "s.yaml:5: expect.said[0]: want exactly one of equals, contains and matches, found 2",
		"expect:\n  said: [{ignore_case: true}]\n":           "s.yaml:5: expect.said[0]: want exactly one of equals, contains and matches, found 0",
		"expect:\n  said: [{matches: '('}]\n":                "s.yaml:5: expect.said[0].matches: invalid regular expression",
		"expect:\n  said: {contains: a}\n":                   "s.yaml:5: expect.said: want a sequence",
		"expect:\n  said: [{contains: a, ignore_case: 1}]\n": "s.yaml:5: expect.said[0].ignore_case:",
	})
}
