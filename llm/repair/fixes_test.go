package repair

import "testing"

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

// TestTextAfterNumbers: a ')' after a number outside a call ends it only
// before a delimiter; otherwise the number and what follows are text.
func TestTextAfterNumbers(t *testing.T) {
	checkExact(t, []exactCase{
		{"a parenthesis between digits", `{"a": 1)2}`, `{"a": "1)2"}`, []string{FixUnquotedStrings}},
		{"a minus and a stray parenthesis before a comma", `{"a": -), "b": 1}`, `{"a": -0, "b": 1}`, []string{FixNumbers, FixCloseBrackets}},
	})
}
