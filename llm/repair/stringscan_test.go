package repair

import "testing"

// TestEmbeddedJSONInStrings: a string whose text is JSON, "{"k": 1}", keeps
// its inner quotes (escaped) only when its closing quote, right after the
// closing bracket, is followed by what the context wants: a colon after a
// key, or a delimiter after a value (text after it is dropped). A string that
// opens a bracket and never closes it on its line is text cut short.
func TestEmbeddedJSONInStrings(t *testing.T) {
	checkExact(t, []exactCase{
		{"a key holding an object", `{"{"a"}": 1}`, `{"{\"a\"}": 1}`, []string{FixInnerQuotes}},
		{"an array item holding an object, words after it", `["{"x": 1}" is json]`, `["{\"x\": 1}"]`,
			[]string{FixTrim, FixInnerQuotes}},
		{"a value holding an object, words after it", `{"a": "{"x": 1}" is json}`, `{"a": "{\"x\": 1}"}`,
			[]string{FixTrim, FixInnerQuotes}},
		{"a cut string opening a brace after a string of one comma", `[",", "{a`, `[",", "{a"]`,
			[]string{FixCloseString, FixCloseBrackets}},
	})
}

// TestStringsAroundCommas: where a string's closing quote is in doubt, the
// comma before a quote decides. A string of only a comma is kept when what
// follows its quote can start a next item; a comma after only spaces ends an
// empty string whose closing quote is missing; in an unclosed string a comma
// ends it only before a next member's key.
func TestStringsAroundCommas(t *testing.T) {
	checkExact(t, []exactCase{
		{"a value of one comma before a half-quoted key", `{"a": ","b": 1}`, `{"a": ",","b": 1}`,
			[]string{FixMissingComma, FixUnquotedKeys}},
		{"an item of one comma before a string", `[",""x"]`, `[",","x"]`, []string{FixMissingComma}},
		{"spaces and a comma, then a stray quote", `[" ,"2]`, `["",2]`, []string{FixInnerQuotes, FixCloseString}},
		{"a number, then spaces and a comma, then a stray quote", `[1, "  ,"2]`, `[1, "",2]`,
			[]string{FixInnerQuotes, FixCloseString}},
		{"an unclosed value before a bare key", `{"a": "hello, b: 1}`, `{"a": "hello", "b": 1}`,
			[]string{FixUnquotedKeys, FixCloseString}},
		{"an unclosed value, a space, before a bare key", `{"a": "hello , b: 1}`, `{"a": "hello", "b": 1}`,
			[]string{FixUnquotedKeys, FixCloseString}},
	})
}

// TestArrayItemEnds: in an array a quote followed by a comma ends the item
// only when the comma is followed by the end, a closing bracket or a value;
// before anything else (a semicolon) the quote is text.
func TestArrayItemEnds(t *testing.T) {
	checkExact(t, []exactCase{
		{"a quote, a comma and a semicolon are text", `["say ", ; ok"]`, `["say \", ; ok"]`, []string{FixInnerQuotes}},
		{"a trailing comma before the bracket", `["a", ]`, `["a" ]`, []string{FixTrailingComma}},
	})
}

// TestTopLevelValuesList: strings at the top level separated by a comma,
// spaces around it or not, become one array.
func TestTopLevelValuesList(t *testing.T) {
	checkExact(t, []exactCase{
		{"spaces around the comma", `"a" , "b"`, `["a",  "b"]`, []string{FixMultipleValues}},
		{"a space after the comma", `"a", "b"`, `["a", "b"]`, []string{FixMultipleValues}},
	})
}

// TestQuotedKeysAfterValues: a value's closing quote before a comma is its end
// when a key follows in any quotes: a single-quoted or backtick-quoted key is
// a key as much as a double-quoted one.
func TestQuotedKeysAfterValues(t *testing.T) {
	checkExact(t, []exactCase{
		{"a backtick-quoted next key", "{\"a\": \"x\", `b`: 1}", `{"a": "x", "b": 1}`, []string{FixCurlyQuotes}},
		{"a single-quoted next key", `{"a": "x", 'b': 1}`, `{"a": "x", "b": 1}`, []string{FixSingleQuotes}},
		{"a Python dict", `{'a': 'x', 'b': 1}`, `{"a": "x", "b": 1}`, []string{FixSingleQuotes}},
	})
}

// TestEscapedBackslashesAreEscapes: a valid \\ before a word is an escaped
// backslash, not a path's unknown escape, so the known escapes after it
// (\n) keep their meaning.
func TestEscapedBackslashesAreEscapes(t *testing.T) {
	checkExact(t, []exactCase{
		{"an escaped backslash, a word and a line break", `{"p": "\\ab\n"`, `{"p": "\\ab\n"}`,
			[]string{FixCloseBrackets}},
		{"a server name and a line break", `{"p": "\\server\new"`, `{"p": "\\server\new"}`,
			[]string{FixCloseBrackets}},
	})
}

// TestBadUnicodeEscapeColumn: a \u without four hex digits is refused at the
// column of its backslash.
func TestBadUnicodeEscapeColumn(t *testing.T) {
	checkRefusals(t, []refusalCase{
		{"two hex digits", `["ab\u12"]`,
			`re-emit the call as valid JSON: invalid \u escape: \u must be followed by four hex digits at line 1, column 5`},
		{"no hex digit", `{"a": "xyz\uq"}`,
			`re-emit the call as valid JSON: invalid \u escape: \u must be followed by four hex digits at line 1, column 11`},
	})
}

// TestEscapedQuoteKeyIsNoSet: an object whose first key ends at a \" before
// its colon, {"a, b\": c"}, is an object, however much its first key and a
// later quote look like a set's item, {'a, b'}: the key holds a comma and
// the backslash, the value is the text after the colon. The set reading and
// the key reading used to disagree and call each other without end.
func TestEscapedQuoteKeyIsNoSet(t *testing.T) {
	checkExact(t, []exactCase{
		{"a comma in the key", `{"a, b\": c"}`, `{"a, b\\": "c"}`, []string{FixEscapeBackslashes, FixUnquotedStrings}},
		{"a brace in the key", `{"}dir\": x"}`, `{"}dir\\": "x"}`, []string{FixEscapeBackslashes, FixUnquotedStrings}},
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
