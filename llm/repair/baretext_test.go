package repair

import "testing"

// TestPrefixesBeforeQuotes: one or two letters joined to a double- or
// single-quoted string (Python's b'abc', r'\d') are a prefix and dropped; joined
// to a backtick, or to a quote that closes a string whose opening quote is
// missing, they are text.
func TestPrefixesBeforeQuotes(t *testing.T) {
	checkExact(t, []exactCase{
		{"a raw single-quoted string", `{"re": r'\d+'}`, `{"re": "\\d+"}`,
			[]string{FixTrim, FixEscapeBackslashes, FixSingleQuotes}},
		{"a bytes literal", `[b'abc']`, `["abc"]`, []string{FixTrim, FixSingleQuotes}},
		{"a letter before backticks", "[x`y`]", "[\"x`y`\"]", []string{FixUnquotedStrings}},
		{"items missing their opening quotes", `[a",b"]`, `["a","b"]`, []string{FixUnquotedStrings}},
	})
}

// TestBareTextGroups: unquoted text keeps the brackets and parentheses it
// closes on its line, and the commas inside them.
func TestBareTextGroups(t *testing.T) {
	checkExact(t, []exactCase{
		{"a shell variable", `{"dir": ${HOME}/x}`, `{"dir": "${HOME}/x"}`, []string{FixUnquotedStrings}},
		{"a brace right after the first letter", `[a{1}]`, `["a{1}"]`, []string{FixUnquotedStrings}},
		{"a comma before the closing parenthesis", `{"a": see (x, y,) here}`, `{"a": "see (x, y,) here"}`,
			[]string{FixUnquotedStrings}},
		{"a tuple of one written in text", `{"t": tuple (1,)}`, `{"t": "tuple (1,)"}`, []string{FixUnquotedStrings}},
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

// TestWords: bare words are letters a to z in either case, digits, _ and $,
// and any non-ASCII character.
func TestWords(t *testing.T) {
	checkExact(t, []exactCase{
		{"a word with z", `{"mode": zoom}`, `{"mode": "zoom"}`, []string{FixUnquotedStrings}},
		{"a word starting with a non-ASCII letter", `{"name": Àlex}`, `{"name": "Àlex"}`, []string{FixUnquotedStrings}},
		{"a name with a stray byte is no bare member's name", "ab\x80: x", "\"ab\x80: x\"", []string{FixUnquotedStrings}},
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

// TestAcuteAccentKeys: a key between acute accents is a key, in an object
// after a string value and in an array.
func TestAcuteAccentKeys(t *testing.T) {
	checkExact(t, []exactCase{
		{"after a string value", `{"a": "x", ´b´: 1}`, `{"a": "x", "b": 1}`, []string{FixCurlyQuotes}},
		{"in an array", `[´k´: 1]`, `[{"k": 1}]`, []string{FixCurlyQuotes, FixCloseBrackets}},
	})
}
