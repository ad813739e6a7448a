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
