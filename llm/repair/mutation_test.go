package repair

import (
	"encoding/json"
	"errors"
	"fmt"
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

// TestLayoutKept: a repaired value keeps the input's spacing around and
// inside it; only what a fix needs changes.
func TestLayoutKept(t *testing.T) {
	checkExact(t, []exactCase{
		{"space before an unclosed array", " [", " []", []string{FixCloseBrackets}},
		{"spaces around a bare member's colon", "city : Rome", `{"city" : "Rome"}`,
			[]string{FixUnquotedKeys, FixUnquotedStrings, FixCloseBrackets, FixMissingBraces}},
	})
}

// TestBareWords: a single word or a word with a colon but no value after it
// is text, not an object's member without its braces.
func TestBareWords(t *testing.T) {
	checkExact(t, []exactCase{
		{"a cut literal of one letter", "t", "true", []string{FixCloseLiteral}},
		{"a word of one letter", "q", `"q"`, []string{FixUnquotedStrings}},
		{"a name and a colon, nothing after", "k:", `"k:"`, []string{FixUnquotedStrings}},
		{"a name, a colon and a space, nothing after", "k: ", `"k:"`, []string{FixUnquotedStrings}},
		{"no space after a name's colon: text", "note:x", `"note:x"`, []string{FixUnquotedStrings}},
	})
}

// TestSurplusClosers: closing brackets after a complete value are trimmed
// only when nothing but whitespace follows them.
func TestSurplusClosers(t *testing.T) {
	checkExact(t, []exactCase{
		{"a surplus brace, then a space and a line break", "{\"a\":1}} \n", `{"a":1}`, []string{FixTrim}},
	})
	checkRefusals(t, []refusalCase{
		{"a surplus brace, then a word", `{"a":1}}x`,
			"re-emit the call as valid JSON: unexpected '}' after the JSON value at line 1, column 8"},
	})
}

// TestNumberedProse: a numbered item of up to three digits ("1. ", "(ii)")
// introduces the value like other prose; a longer number is a number.
func TestNumberedProse(t *testing.T) {
	checkExact(t, []exactCase{
		{"an indented numbered item", "   1. First the path\n{\"a\": 1}", `{"a": 1}`, []string{FixStripProse}},
		{"a parenthesised item of three letters", "(abc) the args:\n{\"a\": 1}", `{"a": 1}`, []string{FixStripProse}},
		{"a number and a period with nothing after", "1. ", "1.0 ", []string{FixNumbers}},
		{"an opening parenthesis alone is an empty tuple", "(", "[]", []string{FixPythonLiterals, FixCloseBrackets}},
		{"a tuple cut after its first item", "(7", "[7]", []string{FixPythonLiterals, FixCloseBrackets}},
	})
	checkRefusals(t, []refusalCase{
		{"four digits are a number, not an item", "2024. First the path\n{\"a\": 1}",
			"re-emit the call as valid JSON: unexpected 'F' after the JSON value at line 1, column 7 (tried: numbers)"},
		{"an empty tuple followed by text", "() here it is\n{\"a\": 1}",
			"re-emit the call as valid JSON: unexpected 'h' after the JSON value at line 1, column 4 (tried: python_literals)"},
	})
}

// TestLeadingZeros: a number written with a leading zero is not JSON; it is
// kept as text so that no digit is lost (a postcode, an id).
func TestLeadingZeros(t *testing.T) {
	checkExact(t, []exactCase{
		{"top level", "01234", `"01234"`, []string{FixUnquotedStrings}},
		{"two digits", "07", `"07"`, []string{FixUnquotedStrings}},
		{"in an array", "[0789]", `["0789"]`, []string{FixUnquotedStrings}},
	})
}

// TestRegexValues: a /regex/ written as a value is kept as text with its
// flags, its character classes and escaped slashes.
func TestRegexValues(t *testing.T) {
	checkExact(t, []exactCase{
		{"flags kept", `{"r": /ab+/gi}`, `{"r": "/ab+/gi"}`, []string{FixUnquotedStrings}},
		{"a class holding a slash and a bracket", `{"r": /[/}]x/}`, `{"r": "/[/}]x/"}`, []string{FixUnquotedStrings}},
		{"a comma inside", "/,/", `"/,/"`, []string{FixUnquotedStrings}},
		{"an escaped slash", `{"r": /a\/b/}`, `{"r": "/a\\/b/"}`, []string{FixUnquotedStrings}},
	})
}

// TestNestingLimitInsertedBracket: the '[' that close_brackets adds for an
// array whose opening bracket is missing counts towards the nesting limit.
func TestNestingLimitInsertedBracket(t *testing.T) {
	member := `{"t": "a", "b"]}`
	out, fixes, err := Repair(strings.Repeat("[", maxDepth-2) + member)
	if err != nil || !json.Valid([]byte(out)) || !reflect.DeepEqual(fixes, []string{FixCloseBrackets}) {
		t.Errorf("%d levels and a missing '[': %v, %q; want it repaired with close_brackets", maxDepth, err, fixes)
	}
	_, _, err = Repair(strings.Repeat("[", maxDepth-1) + member)
	want := fmt.Sprintf("re-emit the call as valid JSON: nesting too deep at line 1, column %d (tried: close_brackets)", maxDepth+11)
	if err == nil || err.Error() != want {
		t.Errorf("%d levels and a missing '[': %v; want %q", maxDepth+1, err, want)
	}
}

// TestRefusalQuotesProse: a refusal of a fragment inside prose quotes the
// prose, up to 40 bytes of it.
func TestRefusalQuotesProse(t *testing.T) {
	forty := "the tool wants these values right now ok" // 40 bytes
	checkRefusals(t, []refusalCase{
		{"40 bytes quoted whole", forty + ` "x": 1`,
			`re-emit the call as valid JSON: unexpected '"' after the text "` + forty +
				`"; send only the JSON value, without prose at line 1, column 42 (tried: unquoted_strings)`},
		{"41 bytes cut at 40", forty + `k "x": 1`,
			`re-emit the call as valid JSON: unexpected '"' after the text "` + forty +
				`…"; send only the JSON value, without prose at line 1, column 43 (tried: unquoted_strings)`},
	})
}

// TestApostrophesInText: an apostrophe inside or at the end of a word is
// text, not a quote that opens a string.
func TestApostrophesInText(t *testing.T) {
	checkExact(t, []exactCase{
		{"a curly apostrophe inside a word", "It’s fine", `"It’s fine"`, []string{FixUnquotedStrings}},
		{"a curly apostrophe ending the input", "Alex’", `"Alex’"`, []string{FixUnquotedStrings}},
		{"an indented parenthesised item", "  (a) the args:\n{\"a\": 1}", `{"a": 1}`, []string{FixStripProse}},
	})
}

// TestCodeFences: a Markdown fence with nothing in it is refused, naming
// the code block; one whose closing fence is missing (a cut) still yields its
// value.
func TestCodeFences(t *testing.T) {
	checkExact(t, []exactCase{
		{"closing fence missing", "```json\n{\"a\": 1}", "\n{\"a\": 1}", []string{FixStripProse}},
	})
	checkRefusals(t, []refusalCase{
		{"an opening fence alone", "```",
			"re-emit the call as valid JSON: the code block holds no JSON value at line 1, column 4 (tried: strip_prose)"},
		{"an opening fence and its language alone", "```json",
			"re-emit the call as valid JSON: the code block holds no JSON value at line 1, column 8 (tried: strip_prose)"},
		{"a fence closed right after its language", "```json```",
			"re-emit the call as valid JSON: the code block holds no JSON value at line 1, column 8 (tried: strip_prose)"},
	})
}

// TestCallsAndParentheses: a JSONP call cut inside its argument still
// yields the argument; a ')' that closes nothing open is dropped, or closes
// the array it ends.
func TestCallsAndParentheses(t *testing.T) {
	checkExact(t, []exactCase{
		{"a call cut inside its object", "callback({);", "{}", []string{FixFunctionCall, FixCloseBrackets}},
		{"a parenthesis closing an array at the end, then a line break", "{\n\"ids\":[4,5,6)\n", "{\n\"ids\":[4,5,6]\n}", []string{FixCloseBrackets}},
		{"a parenthesis then a bracket closing the same array", `{"a": [1, 2)]}`, `{"a": [1, 2]}`, []string{FixCloseBrackets}},
		{"a parenthesis in place of a bracket", `{"a": [1, 2)}`, `{"a": [1, 2]}`, []string{FixCloseBrackets}},
		{"a stray parenthesis and a trailing comma", "[5),}", "[5]", []string{FixTrailingComma, FixCloseBrackets}},
		{"a stray parenthesis before two unclosed objects", "[){{]", "[{},{}]", []string{FixMissingComma, FixCloseBrackets}},
	})
	checkRefusals(t, []refusalCase{
		{"a wrong bracket inside a call", "callback({]})",
			"re-emit the call as valid JSON: unexpected '}' where ')' should close the call at line 1, column 12 (tried: function_call, close_brackets)"},
	})
}

// TestMembersInArrays: key: value inside an array is an object of its own;
// a URL is not a key.
func TestMembersInArrays(t *testing.T) {
	checkExact(t, []exactCase{
		{"a member, then an object", `["x": 1 {"z": 3}]`, `[{"x": 1 },{"z": 3}]`, []string{FixMissingComma, FixCloseBrackets}},
		{"a member without a value, then a number", `["a":} 1]`, `[{"a":null}, 1]`, []string{FixMissingComma, FixMissingValue, FixCloseBrackets}},
		{"a URL as an item", `["see", https://example.com/a]`, `["see", "https://example.com/a"]`, []string{FixUnquotedStrings}},
		{"an object not closed before the next", `[{"a":1{"b":2]]`, `[{"a":1},{"b":2}]`, []string{FixTrim, FixMissingComma, FixCloseBrackets}},
		{"brackets mismatched inside an array", "[{[}]", "[{},[]]", []string{FixMissingComma, FixCloseBrackets}},
	})
}
