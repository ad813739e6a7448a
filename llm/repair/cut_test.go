package repair

import "testing"

// TestCutInNextKey: output cut inside or right after the key of a member
// that follows a string value (the usual place a length limit cuts a tool
// call) keeps that value as it was written and gives the cut key null, as for
// the first key. The string's closing quote fits: a comma and a next key
// follow, and the end of the input cuts that key.
func TestCutInNextKey(t *testing.T) {
	checkExact(t, []exactCase{
		{"cut after the key's closing quote", `{"path":"a.txt","mode"`, `{"path":"a.txt","mode":null}`,
			[]string{FixMissingValue, FixCloseBrackets}},
		{"cut after the key and a space", `{"path": "a.txt", "mode" `, `{"path": "a.txt", "mode" :null}`,
			[]string{FixMissingValue, FixCloseBrackets}},
		{"cut inside the key", `{"path":"a.txt","mo`, `{"path":"a.txt","mo":null}`,
			[]string{FixMissingValue, FixCloseString, FixCloseBrackets}},
		{"cut right after the key's opening quote: the member is dropped", `{"path": "a.txt", "`, `{"path": "a.txt" }`,
			[]string{FixTrailingComma, FixCloseString, FixCloseBrackets}},
		{"cut inside an unquoted key", `{"path":"a.txt",mo`, `{"path":"a.txt","mo":null}`,
			[]string{FixUnquotedKeys, FixMissingValue, FixCloseBrackets}},
		{"a hyphenated unquoted key", `{"a":"x",my-ke`, `{"a":"x","my-ke":null}`,
			[]string{FixUnquotedKeys, FixMissingValue, FixCloseBrackets}},
		{"two words after the comma are no key: the quote is text", `{"a":"x",b c`, `{"a":"x\",b c"}`,
			[]string{FixInnerQuotes, FixCloseString, FixCloseBrackets}},
		{"the package doc's example", `{"a": "x", "b`, `{"a": "x", "b":null}`,
			[]string{FixMissingValue, FixCloseString, FixCloseBrackets}},
		{"an empty value before the cut key", `{"a":"","b"`, `{"a":"","b":null}`,
			[]string{FixMissingValue, FixCloseBrackets}},
	})
}
