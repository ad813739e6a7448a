package repair

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
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

// TestCutInsideCharacter: output cut in the middle of a multi-byte
// character (a length limit counts bytes) is closed like any cut string; the
// bytes written are kept.
func TestCutInsideCharacter(t *testing.T) {
	closeFixes := []string{FixCloseString, FixCloseBrackets}
	checkExact(t, []exactCase{
		{"first byte of a two-byte character (£)", "{\"price\": \"\xc2", "{\"price\": \"\xc2\"}", closeFixes},
		{"two bytes of a three-byte character (…)", "{\"a\": \"wait\xe2\x80", "{\"a\": \"wait\xe2\x80\"}", closeFixes},
		{"two bytes of a fullwidth character (：)", "{\"a\": \"x\xef\xbc", "{\"a\": \"x\xef\xbc\"}", closeFixes},
	})
}

// TestQuoteKinds: a string ends only at a quote of its own kind (or the
// matching curly or straight one); a double quote inside a single-quoted,
// curly-quoted or backticked string is text.
func TestQuoteKinds(t *testing.T) {
	checkExact(t, []exactCase{
		{"double quotes inside single quotes", `{"q": 'say "hi" now'}`, `{"q": "say \"hi\" now"}`, []string{FixSingleQuotes}},
		{"double quotes inside curly single quotes", `{‘q’: ‘say "hi"’}`, `{"q": "say \"hi\""}`, []string{FixCurlyQuotes}},
		{"double quotes inside backticks", "{\"q\": `say \"hi\"`}", `{"q": "say \"hi\""}`, []string{FixCurlyQuotes}},
		{"a straight quote closed by a curly one", "['Rounded ’]", `["Rounded "]`, []string{FixCurlyQuotes, FixSingleQuotes}},
		{"a lone single quote", "'", `""`, []string{FixSingleQuotes, FixCloseString}},
		{"a lone backtick", "`", `""`, []string{FixCurlyQuotes, FixCloseString}},
		{"three double quotes", `{"k": """}`, `{"k": "\""}`, []string{FixInnerQuotes}},
		{"a single-quoted string holding an ellipsis", "{'a': 'wait…'}", `{"a": "wait…"}`, []string{FixSingleQuotes}},
	})
}

// TestWords: bare words are letters a to z in either case, digits, _ and $,
// and any non-ASCII character.
func TestWords(t *testing.T) {
	checkExact(t, []exactCase{
		{"a word with z", `{"mode": zoom}`, `{"mode": "zoom"}`, []string{FixUnquotedStrings}},
		{"a word starting with a non-ASCII letter", `{"name": Àlex}`, `{"name": "Àlex"}`, []string{FixUnquotedStrings}},
		{"a name with a stray byte is no bare member's name", "ab\x80: x", "\"ab\x80: x\"", []string{FixUnquotedStrings}},
	})
}

// TestUnicodeEscapesValid: \u escapes with hex letters a to f, in either
// case, are valid JSON and returned unchanged.
func TestUnicodeEscapesValid(t *testing.T) {
	for _, in := range []string{`{"c":"\u00a9 \u00FF \u00Ea"}`, `["\uABCD","\uface"]`} {
		out, fixes, err := Repair(in)
		if err != nil || out != in || fixes != nil {
			t.Errorf("Repair(%q) = %q, %q, %v; want it unchanged", in, out, fixes, err)
		}
	}
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

// TestStringsCut: a string cut by the end of the input is closed where the
// input ends; junk after a closed string is dropped.
func TestStringsCut(t *testing.T) {
	checkExact(t, []exactCase{
		{"cut after an opening brace in a value", `{"a": "{`, `{"a": "{"}`, []string{FixCloseString, FixCloseBrackets}},
		{"a top-level string ending in a brace", `"a}`, `"a}"`, []string{FixCloseString}},
		{"a comma at the end of a cut item", `["x", "y,]`, `["x", "y"]`, []string{FixTrailingComma, FixCloseString}},
		{"a hash comment after an item, cut", `["a" # note`, `["a"]`, []string{FixTrim, FixCloseBrackets}},
		{"a letter after a closed value, cut", `{"a": "ok"x`, `{"a": "ok"}`, []string{FixTrim, FixCloseBrackets}},
		{"JSON text in a string, cut after a key", `{"c": "{"x":`, `{"c": "{\"x\":"}`, []string{FixInnerQuotes, FixCloseString, FixCloseBrackets}},
		{"a backslash before the closing brace", `{"a":"b\}`, `{"a":"b}"}`, []string{FixEscapeBackslashes, FixCloseString, FixCloseBrackets}},
		{"an empty key, cut", `{""`, `{"":null}`, []string{FixMissingValue, FixCloseBrackets}},
		{"an empty pair of single quotes", "''", `""`, []string{FixSingleQuotes}},
	})
}

// TestMoreQuoteKinds: the acute accent ´ delimits a string like a backtick;
// a double quote at the end of a cut curly-quoted or backticked string is
// text (6" is six inches), not its end.
func TestMoreQuoteKinds(t *testing.T) {
	checkExact(t, []exactCase{
		{"acute accents", `{"a": ´x´}`, `{"a": "x"}`, []string{FixCurlyQuotes}},
		{"a lone acute accent", "´", `""`, []string{FixCurlyQuotes, FixCloseString}},
		{"inches in curly quotes, cut", `{"size": ‘6"`, `{"size": "6\""}`, []string{FixCurlyQuotes, FixCloseString, FixCloseBrackets}},
		{"inches in backticks, cut", "{\"size\": `6\"", `{"size": "6\""}`, []string{FixCurlyQuotes, FixCloseString, FixCloseBrackets}},
		{"three double quotes at the top", `"""`, `"\""`, []string{FixInnerQuotes}},
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

// TestNumbersFix: the numbers fix completes the forms the package doc
// lists, alone and inside containers.
func TestNumbersFix(t *testing.T) {
	nums := []string{FixNumbers}
	checkExact(t, []exactCase{
		{"a point alone", ".", "0.0", nums},
		{"a leading point", ".0", "0.0", nums},
		{"a leading point in a member", `{"n": .5}`, `{"n": 0.5}`, nums},
		{"a trailing point, cut", `{"n": 2.`, `{"n": 2.0}`, []string{FixNumbers, FixCloseBrackets}},
		{"an exponent without digits", "1e", "1e0", nums},
		{"an exponent's plus sign without digits", `{"n": 1e+}`, `{"n": 1e+0}`, nums},
		{"an exponent's minus sign without digits, cut", `{"n": 1.5e-`, `{"n": 1.5e-0}`, []string{FixNumbers, FixCloseBrackets}},
		{"a minus alone", "-", "-0", nums},
		{"a minus alone in an array", "[-]", "[-0]", nums},
		{"a point before a line comment", ".//", "0.0", []string{FixComments, FixNumbers}},
		{"a number cut before a comment", "[1.// one", "[1.0]", []string{FixComments, FixNumbers, FixCloseBrackets}},
		{"a minus before a block comment", "-/*", "-0", []string{FixComments, FixNumbers}},
	})
}

// TestLiteralsFix: Python's spellings become JSON literals; a literal cut
// short is completed only from its first letters (None from three: N alone
// is a word).
func TestLiteralsFix(t *testing.T) {
	checkExact(t, []exactCase{
		{"True", "True", "true", []string{FixPythonLiterals}},
		{"None cut to three letters", "Non", "null", []string{FixCloseLiteral}},
		{"N alone is a word", "N", `"N"`, []string{FixUnquotedStrings}},
		{"an unclosed object alone", "{", "{}", []string{FixCloseBrackets}},
	})
}

// TestCutEscapes: an escape cut by the end of the input is dropped, and the
// string closed; a complete escaped backslash stays.
func TestCutEscapes(t *testing.T) {
	cs := []string{FixCloseString}
	checkExact(t, []exactCase{
		{"a backslash at the end", `{"a": "line\`, `{"a": "line"}`, []string{FixCloseString, FixCloseBrackets}},
		{"a backslash alone in a string", `"\`, `""`, cs},
		{"a backslash in a single-quoted string", `'\`, `""`, []string{FixSingleQuotes, FixCloseString}},
		{"an escaped backslash at the end", `"\\`, `"\\"`, cs},
		{"an escaped backslash and a letter", `"\\u`, `"\\u"`, cs},
		{"a path of escaped backslashes", `{"p":"\\se`, `{"p":"\\se"}`, []string{FixCloseString, FixCloseBrackets}},
		{"a \\u escape cut after the u", `"\u`, `""`, cs},
		{"a \\u escape cut after one digit", `"\u2`, `""`, cs},
		{"a \\u escape cut after three digits", `"\u260`, `""`, cs},
		{"a \\u escape cut in a word", `{"a": "caf\u00`, `{"a": "caf"}`, []string{FixCloseString, FixCloseBrackets}},
		{"a complete \\u escape at the end", `"\u0000`, `"\u0000"`, cs},
	})
	checkRefusals(t, []refusalCase{
		{"a \\u escape without digits", `{"a": "\u"}`,
			`re-emit the call as valid JSON: invalid \u escape: \u must be followed by four hex digits at line 1, column 8`},
	})
}

// TestStringEnds: where a string ends after commas, line breaks and
// escaped quotes.
func TestStringEnds(t *testing.T) {
	checkExact(t, []exactCase{
		{"a value, a comma, cut", `{"a":"x",`, `{"a":"x"}`, []string{FixTrailingComma, FixCloseBrackets}},
		{"an empty value, a comma, cut", `{"a":"",`, `{"a":""}`, []string{FixTrailingComma, FixCloseBrackets}},
		{"a top-level string and a comma", `"done",`, `"done"`, []string{FixTrailingComma}},
		{"a space before a comma in a cut array", `["a" ,2`, `["a", 2]`, []string{FixCloseBrackets}},
		{"spaces only, cut before a bracket", `["  ]`, `[""]`, []string{FixCloseString}},
		{"a line break before the closing quote", "\"\n\"", `""`, []string{FixEscapeControlChars}},
		{"a line break before a value's closing quote", "{\"a\": \"x\n\"}", `{"a": "x"}`, []string{FixEscapeControlChars}},
		{"an escaped quote opening the value", `\"`, `""`, []string{FixInnerQuotes, FixCloseString}},
		{"an escaped quote and a word", `\"hi`, `"hi"`, []string{FixInnerQuotes, FixCloseString}},
		{"a lone closing quote after a key in an array", `[a": 1]`, `[{"a": 1}]`, []string{FixUnquotedKeys, FixCloseBrackets}},
		{"a tuple and a semicolon", `("a", "b");`, `["a", "b"]`, []string{FixTrim, FixPythonLiterals}},
		{"a tuple of one string and a semicolon", `("foo");`, `["foo"]`, []string{FixTrim, FixPythonLiterals}},
	})
}

// TestPrefixedStrings: a word of one or two letters joined to a string is
// dropped; Python's r or R prefix keeps the backslashes.
func TestPrefixedStrings(t *testing.T) {
	checkExact(t, []exactCase{
		{"two letters", `{"a": th"that"}`, `{"a": "that"}`, []string{FixTrim}},
		{"two letters at the top", `th"quotes"]`, `"quotes"`, []string{FixTrim}},
		{"raw string, upper case", `{"re": R"\d"}`, `{"re": "\\d"}`, []string{FixTrim, FixEscapeBackslashes}},
		{"raw string, lower case", `{"re": r"\d"}`, `{"re": "\\d"}`, []string{FixTrim, FixEscapeBackslashes}},
		{"one letter and a quote", `t"`, `"t"`, []string{FixUnquotedStrings}},
	})
}

// TestBareText: text with parentheses, slashes and stars that are not
// calls or comments stays text.
func TestBareText(t *testing.T) {
	us := []string{FixUnquotedStrings}
	checkExact(t, []exactCase{
		{"a word and an opening parenthesis", "g (", `"g ("`, us},
		{"a closing parenthesis", "a)", `"a)"`, us},
		{"a star", "t*", `"t*"`, us},
		{"a slash at the end", "t/", `"t/"`, us},
		{"star slash after a number", "2*/]", `"2*/"`, []string{FixTrim, FixUnquotedStrings}},
		{"a parenthesis inside an item", "[2(e ", `["2(e"]`, []string{FixUnquotedStrings, FixCloseBrackets}},
		{"nested calls cut", "f(g(h", `"g(h"`, []string{FixUnquotedStrings, FixFunctionCall}},
		{"a call closed twice", `{"_id":ObjectId("123"))}`, `{"_id":"123"}`, []string{FixFunctionCall, FixCloseBrackets}},
	})
	checkRefusals(t, []refusalCase{
		{"a word and an object", "a{}",
			`re-emit the call as valid JSON: unexpected '{' after the text "a"; send only the JSON value, without prose at line 1, column 2 (tried: unquoted_strings)`},
		{"a word opening an array after a value", `{"v": a[`,
			"re-emit the call as valid JSON: unexpected '[' where a key should be at line 1, column 8 (tried: missing_comma, unquoted_strings)"},
		{"a slash alone", "/", "re-emit the call as valid JSON: unexpected '/' at line 1, column 1"},
	})
}

// TestValidAgreesAtNestingLimit: the strict validator (Repair's fast path)
// accepts exactly what encoding/json accepts at its nesting limit of 10000,
// for arrays and objects: one level less, at, and one more.
func TestValidAgreesAtNestingLimit(t *testing.T) {
	for _, depth := range []int{9999, 10000, 10001} {
		for _, c := range []struct{ open, close string }{{"[", "]"}, {`{"a":`, "}"}} {
			in := strings.Repeat(c.open, depth) + "1" + strings.Repeat(c.close, depth)
			if got, want := valid(in), json.Valid([]byte(in)); got != want {
				t.Errorf("%q × %d: valid = %v, json.Valid = %v", c.open, depth, got, want)
			}
		}
	}
}

// TestAcuteAccentKeys: a key between acute accents is a key, in an object
// after a string value and in an array.
func TestAcuteAccentKeys(t *testing.T) {
	checkExact(t, []exactCase{
		{"after a string value", `{"a": "x", ´b´: 1}`, `{"a": "x", "b": 1}`, []string{FixCurlyQuotes}},
		{"in an array", `[´k´: 1]`, `[{"k": 1}]`, []string{FixCurlyQuotes, FixCloseBrackets}},
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

// TestTextAfterNumbers: a ')' after a number outside a call ends it only
// before a delimiter; otherwise the number and what follows are text.
func TestTextAfterNumbers(t *testing.T) {
	checkExact(t, []exactCase{
		{"a parenthesis between digits", `{"a": 1)2}`, `{"a": "1)2"}`, []string{FixUnquotedStrings}},
		{"a minus and a stray parenthesis before a comma", `{"a": -), "b": 1}`, `{"a": -0, "b": 1}`, []string{FixNumbers, FixCloseBrackets}},
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

// TestDoubledQuotes: doubled quotes ""x"" are read as one pair, in keys,
// values and arrays; a doubled quote cut by the end closes what is open.
func TestDoubledQuotes(t *testing.T) {
	checkExact(t, []exactCase{
		{"key and value", `{""a"": ""x""}`, `{"a": "x"}`, []string{FixInnerQuotes}},
		{"array items", `[""x"", ""y""]`, `["x", "y"]`, []string{FixInnerQuotes}},
		{"an empty string, cut", `{"a": ""`, `{"a": ""}`, []string{FixCloseBrackets}},
		{"three quotes in an array, cut", `["""`, `[""]`, []string{FixCloseString, FixCloseBrackets}},
		{"three quotes in a value, cut", `{"a": """`, `{"a": "\""}`, []string{FixInnerQuotes, FixCloseBrackets}},
		{"a stray quote after an item's missing quote, then a number", `["q,"7]`, `["q",7]`, []string{FixInnerQuotes, FixCloseString}},
		{"a stray quote, then a string", `["a,""b"]`, `["a","b"]`, []string{FixInnerQuotes, FixCloseString}},
		{"a stray quote ending the input", `["q,""`, `["q",""]`, []string{FixInnerQuotes, FixCloseString, FixCloseBrackets}},
	})
	checkRefusals(t, []refusalCase{
		{"an unclosed first key with a line break is no set item", "{}, {\"a, b\n}",
			"re-emit the call as valid JSON: unexpected '}' where ':' should follow the key at line 2, column 1 (tried: multiple_values, close_string)"},
	})
}
