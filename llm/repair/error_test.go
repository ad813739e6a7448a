package repair

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// exactCase is an input and exactly what Repair returns for it: the output
// text byte for byte (Repair keeps the input's own spacing and layout where
// it does not have to change them) and the fixes, in cascade order.
type exactCase struct {
	name, in, want string
	fixes          []string
}

// checkExact runs Repair on each case and compares the text, not the decoded
// value, so that a change of layout, spacing or escaping shows.
func checkExact(t *testing.T, cases []exactCase) {
	t.Helper()
	for _, tc := range cases {
		out, fixes, err := Repair(tc.in)
		if err != nil || out != tc.want || !reflect.DeepEqual(fixes, tc.fixes) {
			t.Errorf("%s: Repair(%q) = %q, %q, %v; want %q, %q", tc.name, tc.in, out, fixes, err, tc.want, tc.fixes)
		}
	}
}

// refusalCase is an input Repair refuses and the whole message it gives.
type refusalCase struct{ name, in, want string }

// checkRefusals runs Repair on each case and compares the whole message: what
// was found, the line and column, and the fixes tried.
func checkRefusals(t *testing.T, cases []refusalCase) {
	t.Helper()
	for _, tc := range cases {
		out, fixes, err := Repair(tc.in)
		if err == nil {
			t.Errorf("%s: Repair(%q) = %q, %q; want the refusal %q", tc.name, tc.in, out, fixes, tc.want)
			continue
		}
		if !errors.Is(err, ErrUnrepairable) || err.Error() != tc.want {
			t.Errorf("%s: Repair(%q) refused with %q; want %q", tc.name, tc.in, err, tc.want)
		}
	}
}

// TestRefusalLocations: a refusal names what it found, by character, and
// where, by line and column, counting the line breaks before it.
func TestRefusalLocations(t *testing.T) {
	checkRefusals(t, []refusalCase{
		{"only a line break: the end is on line 2", "\n",
			"re-emit the call as valid JSON: the input holds no JSON value at line 2, column 1"},
		{"a stray brace at the start of line 2", "\n}",
			"re-emit the call as valid JSON: unexpected '}' at line 2, column 1"},
		{"a call cut after its parenthesis ends the input", "g(",
			"re-emit the call as valid JSON: unexpected end of input at line 1, column 3"},
		{"a space is named as a character, not a code point", `["q," 7`,
			"re-emit the call as valid JSON: unexpected ' ' at line 1, column 6 (tried: inner_quotes, close_string)"},
		{"a colon with no key before it", ": 5",
			"re-emit the call as valid JSON: unexpected ':' at line 1, column 1"},
	})
}

// TestRefusalQuotesProse: a refusal of a fragment inside prose quotes the
// prose, up to 40 bytes of it.
func TestRefusalQuotesProse(t *testing.T) {
	forty := "the tool wants these values right now ok" // 40 bytes
	checkRefusals(t, []refusalCase{
		{"40 bytes quoted whole", forty + ` "x": 1`,
			`re-emit the call as valid JSON: unexpected '"' after the text "` + forty +
				`"; send only the JSON value, without prose at line 1, column 42 (tried: unquoted_strings)`},
		{"cut on a character boundary", forty[:39] + `ék "x": 1`,
			`re-emit the call as valid JSON: unexpected '"' after the text "` + forty[:39] +
				`…"; send only the JSON value, without prose at line 1, column 43 (tried: unquoted_strings)`},
		{"no character boundary at all: nothing quoted", strings.Repeat("\x80", 41) + ` "x": 1`,
			`re-emit the call as valid JSON: unexpected '"' after the text "…"; send only the JSON value, without prose at line 1, column 43 (tried: unquoted_strings)`},
		{"41 bytes cut at 40", forty + `k "x": 1`,
			`re-emit the call as valid JSON: unexpected '"' after the text "` + forty +
				`…"; send only the JSON value, without prose at line 1, column 43 (tried: unquoted_strings)`},
	})
}
