package repair

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestLayoutKept: a repaired value keeps the input's spacing around and
// inside it; only what a fix needs changes.
func TestLayoutKept(t *testing.T) {
	checkExact(t, []exactCase{
		{"space before an unclosed array", " [", " []", []string{FixCloseBrackets}},
		{"spaces around a bare member's colon", "city : Rome", `{"city" : "Rome"}`,
			[]string{FixUnquotedKeys, FixUnquotedStrings, FixCloseBrackets, FixMissingBraces}},
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

// TestComments: a comment is dropped wherever it stands; an unterminated
// block comment runs to the end of the input; "/*/" opens a comment, it
// does not close one.
func TestComments(t *testing.T) {
	checkExact(t, []exactCase{
		{"a line comment after the value", `{"a": 1} // the end`, `{"a": 1} `, []string{FixComments}},
		{"a block comment before the value", `/* note */ {"a": 1}`, ` {"a": 1}`, []string{FixComments}},
		{"a block comment cut", `{"a": 1 /* cut`, `{"a": 1 }`, []string{FixComments, FixCloseBrackets}},
		{"slash star slash opens a comment", `[1 /*/ 2]`, `[1 ]`, []string{FixComments, FixCloseBrackets}},
	})
	checkRefusals(t, []refusalCase{
		{"only a line comment", "//",
			"re-emit the call as valid JSON: the input holds no JSON value at line 1, column 3 (tried: comments)"},
		{"only an opened block comment", "/*",
			"re-emit the call as valid JSON: the input holds no JSON value at line 1, column 3 (tried: comments)"},
	})
}

// TestOddSpaces: a non-ASCII space between tokens becomes a plain space;
// invisible characters (BOM, zero-width space, joiners, word joiner) are
// dropped.
func TestOddSpaces(t *testing.T) {
	checkExact(t, []exactCase{
		{"no-break space", "{\"a\":\u00a01}", `{"a": 1}`, []string{FixStripBOM}},
		{"ideographic space", "[1,\u30002]", `[1, 2]`, []string{FixStripBOM}},
		{"byte-order mark inside", "{\"a\":\ufeff1}", `{"a":1}`, []string{FixStripBOM}},
		{"zero-width space", "{\"a\":\u200b1}", `{"a":1}`, []string{FixStripBOM}},
		{"zero-width non-joiner", "{\"a\":\u200c1}", `{"a":1}`, []string{FixStripBOM}},
		{"zero-width joiner", "{\"a\":\u200d1}", `{"a":1}`, []string{FixStripBOM}},
		{"word joiner", "{\"a\":\u20601}", `{"a":1}`, []string{FixStripBOM}},
	})
}

// TestObjectEdges: keys and brackets at the edges of an object.
func TestObjectEdges(t *testing.T) {
	checkExact(t, []exactCase{
		{"a stray parenthesis after a member", "{a:2)}", `{"a":2}`, []string{FixUnquotedKeys, FixCloseBrackets}},
		{"a cut key holding a comma", `{"a,b"`, `{"a,b":null}`, []string{FixMissingValue, FixCloseBrackets}},
		{"a single-quoted value, then a cut key", "{a:'foo',b", `{"a":"foo","b":null}`,
			[]string{FixSingleQuotes, FixUnquotedKeys, FixMissingValue, FixCloseBrackets}},
	})
	checkRefusals(t, []refusalCase{
		{"an object opening an object", `{{"a": 1}}`,
			"re-emit the call as valid JSON: unexpected '{' where a key should be at line 1, column 2"},
		{"a key then a comma at the end", `{"k",`,
			"re-emit the call as valid JSON: unexpected ',' where ':' should follow the key at line 1, column 5"},
		{"a key, a comma and a number", `{"name",1`,
			"re-emit the call as valid JSON: unexpected ',' where ':' should follow the key at line 1, column 8"},
	})
}

// TestCallDepthLimit: calls are unwrapped up to 8 deep; past that the
// name and its parenthesis are text, not a ninth call.
func TestCallDepthLimit(t *testing.T) {
	eight := "[" + strings.Repeat("f(", 8) + "1" + strings.Repeat(")", 8) + "]"
	checkExact(t, []exactCase{{"eight calls", eight, "[1]", []string{FixFunctionCall}}})
	nine := "[" + strings.Repeat("f(", 9) + "1" + strings.Repeat(")", 9) + "]"
	out, fixes, err := Repair(nine)
	if err != nil || out == "[1]" || !slices.Contains(fixes, FixUnquotedStrings) {
		t.Errorf("Repair(%q) = %q, %q, %v; want the ninth call kept as text", nine, out, fixes, err)
	}
	checkRefusals(t, []refusalCase{
		{"a parenthesis on its own line after bare items", "[\na,\nb\n(]",
			"re-emit the call as valid JSON: unexpected '(' at line 4, column 1 (tried: unquoted_strings)"},
	})
}

// TestUnclosedKeyIsNoSetItem: an object whose first key is not closed on
// its line is not read as a set ({'a', 'b'}), whatever precedes it.
func TestUnclosedKeyIsNoSetItem(t *testing.T) {
	checkRefusals(t, []refusalCase{
		{"after an empty object", `{}, {"a, b}`,
			"re-emit the call as valid JSON: unexpected '}' where ':' should follow the key at line 1, column 11 (tried: multiple_values, close_string)"},
	})
}
