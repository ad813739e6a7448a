package scenario_test

import (
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
)

// TestQuotedPositionRefused: a position quoted by mistake in an
// expectation keyed by call is refused when the scenario loads, saying how
// to write it; it is not taken as a call ID.
func TestQuotedPositionRefused(t *testing.T) {
	checkParseErrors(t, map[string]string{
		"expect:\n  errors: {\"{turn: 1, call: 1}\": failed}\n": `s.yaml:5: expect.errors: the key "{turn: 1, call: 1}" is a string, not a {turn, call} mapping; write the position without quotes, as {turn: 1, call: 1}`,
	})
}

// TestParseCallAtReadsWhatCallAtWrites: a position written by CallAt reads
// back as the same turn and call; a call ID, and a position whose number does
// not fit an int, is not a position.
func TestParseCallAtReadsWhatCallAtWrites(t *testing.T) {
	if turn, call, ok := scenario.ParseCallAt(scenario.CallAt(3, 12)); !ok || turn != 3 || call != 12 {
		t.Errorf("ParseCallAt(CallAt(3, 12)) = %d, %d, %v; want 3, 12, true", turn, call, ok)
	}
	if turn, call, ok := scenario.ParseCallAt("{turn:7,call:1}"); !ok || turn != 7 || call != 1 {
		t.Errorf("ParseCallAt without spaces = %d, %d, %v; want 7, 1, true", turn, call, ok)
	}
	for _, ref := range []string{
		"call_1",
		"call_1 {turn: 1, call: 1}",
		"{turn: 1, call: 1} call_1",
		"{turn: 99999999999999999999, call: 1}",
		"{turn: 1, call: 99999999999999999999}",
	} {
		if _, _, ok := scenario.ParseCallAt(ref); ok {
			t.Errorf("ParseCallAt(%q) is a position; want ok false", ref)
		}
	}
}

// TestExpectErrorsAndRepairsByPosition: expect.errors and expect.repairs name
// a call by ID or by position; both kinds of key are kept, under the ID and
// under CallAt's text.
func TestExpectErrorsAndRepairsByPosition(t *testing.T) {
	s := parseBody(t, "expect:\n  errors: {call_7: timeout, {turn: 2, call: 1}: failed}\n  repairs: {{turn: 3, call: 2}: [trailing_commas]}\n")
	if got := s.Expect.Errors; len(got) != 2 || got["call_7"] != tools.KindTimeout || got[scenario.CallAt(2, 1)] != tools.KindFailed {
		t.Errorf("expect.errors = %v; want call_7: timeout and {turn: 2, call: 1}: failed", got)
	}
	if got := s.Expect.Repairs[scenario.CallAt(3, 2)]; len(got) != 1 || got[0] != "trailing_commas" {
		t.Errorf("expect.repairs = %v; want {turn: 3, call: 2}: [trailing_commas]", s.Expect.Repairs)
	}
}
