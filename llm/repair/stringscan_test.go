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
