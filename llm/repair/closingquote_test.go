package repair

import "testing"

// TestRepairBackslashBeforeClosingQuote covers a string whose last character
// is a backslash written without its escape, as in a path to a directory or a
// drive: "D:\". In JSON a backslash always starts an escape and \" stands
// for a quote inside the string, so such a string never closes. When the
// repair ends the string right after that quote anyway (a comma and a next
// item, a closing bracket or a line break follow), the quote is the string's
// closing quote: the backslash before it is text, kept as \\, and no quote is
// added. A quote after an escaped backslash (an even run, \\") closes the
// string as JSON says, and escaped quotes that a later quote closes, or that
// pair up (\"yes\"), stay quotes in the text. A key is a string too: a \"
// followed by the colon ends it, {"a\": 1}, unless a later quote closes the
// key before a colon, so that the \" is inside it.
func TestRepairBackslashBeforeClosingQuote(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  string // expected value, compared decoded
		fixes []string
	}{
		// The quote after the backslash ends the string: the value ends with
		// the backslash.
		{"drive before the next item", `["D:\", 2]`, `["D:\\", 2]`, []string{FixEscapeBackslashes}},
		{"drive before the next member", `{"dir": "E:\", "depth": 3}`, `{"dir": "E:\\", "depth": 3}`, []string{FixEscapeBackslashes}},
		{"drive before the closing brace", `{"dir": "E:\"}`, `{"dir": "E:\\"}`, []string{FixEscapeBackslashes}},
		{"drive before a line break", "{\"dir\": \"E:\\\"\n}", `{"dir": "E:\\"}`, []string{FixEscapeBackslashes}},
		{"directory before the next member", `{"p": "C:\Temp\", "n": 1}`, `{"p": "C:\\Temp\\", "n": 1}`, []string{FixEscapeBackslashes}},
		{"two drives in an array", `["C:\", "D:\"]`, `["C:\\", "D:\\"]`, []string{FixEscapeBackslashes}},
		{"last array item", `["x", "tmp\"]`, `["x", "tmp\\"]`, []string{FixEscapeBackslashes}},
		{"word before the next member", `{"sep": "a\", "k": 0}`, `{"sep": "a\\", "k": 0}`, []string{FixEscapeBackslashes}},
		{"word before the closing brace", `{"sep": "a\"}`, `{"sep": "a\\"}`, []string{FixEscapeBackslashes}},
		{"spaces before the comma", `["q\" , 7]`, `["q\\", 7]`, []string{FixEscapeBackslashes}},
		{"only a backslash", `["\", 1]`, `["\\", 1]`, []string{FixEscapeBackslashes}},
		{"single-quoted", `{'dir': 'F:\', 'n': 1}`, `{"dir": "F:\\", "n": 1}`, []string{FixEscapeBackslashes, FixSingleQuotes}},
		{"curly-quoted", `[“C:\”, 1]`, `["C:\\", 1]`, []string{FixEscapeBackslashes, FixCurlyQuotes}},
		{"before a concatenation", `{"a": "dir\" + "name"}`, `{"a": "dir\\name"}`, []string{FixEscapeBackslashes, FixConcatenation}},
		// Three backslashes: an escaped backslash, then one before the quote.
		{"odd run of three", `["v\\\", 1]`, `["v\\\\", 1]`, []string{FixEscapeBackslashes}},
		// A key: the quote before the colon is the key's closing quote.
		{"key before its colon", `{"a\": 1}`, `{"a\\": 1}`, []string{FixEscapeBackslashes}},
		{"key before its colon, no space", `{"dir\":"x"}`, `{"dir\\": "x"}`, []string{FixEscapeBackslashes}},
		{"key before a spaced colon", `{"k\"  : true}`, `{"k\\": true}`, []string{FixEscapeBackslashes}},
		{"two such keys", `{"a\": 1, "b\": 2}`, `{"a\\": 1, "b\\": 2}`, []string{FixEscapeBackslashes}},
		{"key after a member", `{"v": "x", "C:\": 0}`, `{"v": "x", "C:\\": 0}`, []string{FixEscapeBackslashes}},
		{"key on the next line after a member", "{\"v\": \"x\",\n \"C:\\\": 0\n}", `{"v": "x", "C:\\": 0}`, []string{FixEscapeBackslashes}},
		{"key on the next line, comma missing", "{\"v\": \"x\"\n\"C:\\\": 0}", `{"v": "x", "C:\\": 0}`, []string{FixEscapeBackslashes, FixMissingComma}},
		{"single-quoted key", `{'s\': 5}`, `{"s\\": 5}`, []string{FixEscapeBackslashes, FixSingleQuotes}},
		{"curly-quoted key", `{“c\”: 7}`, `{"c\\": 7}`, []string{FixEscapeBackslashes, FixCurlyQuotes}},
		{"key on a line of its own", "{\n  \"n\\\": 8\n}", `{"n\\": 8}`, []string{FixEscapeBackslashes}},
		{"key with an odd run of three", `{"w\\\": 6}`, `{"w\\\\": 6}`, []string{FixEscapeBackslashes}},

		// Quotes that stay escaped (each input has another defect, so that it
		// goes through the repairing pass, not the strict fast path).
		{"escaped quotes closed later", `{"q": "said \"yes\" twice",}`, `{"q": "said \"yes\" twice"}`, []string{FixTrailingComma}},
		{"escaped quote before a comma in the text", `{"q": "x\", y", 'k': 1}`, `{"q": "x\", y", "k": 1}`, []string{FixSingleQuotes}},
		{"escaped backslash then the closing quote", `["dir\\", 2,]`, `["dir\\", 2]`, []string{FixTrailingComma}},
		{"escaped backslash and escaped quote", `["v\\\"", 1,]`, `["v\\\"", 1]`, []string{FixTrailingComma}},
		{"paired escaped quotes, closing quote missing", `{"q": "say \"hi\"}`, `{"q": "say \"hi\""}`, []string{FixCloseString}},
		{"cut after an escaped quote", `{"q": "say \"`, `{"q": "say \""}`, []string{FixCloseString, FixCloseBrackets}},
		{"escaped quote inside a key", `{"a\"b": 1,}`, `{"a\"b": 1}`, []string{FixTrailingComma}},
		{"escaped quote before a colon inside a key", `{"t\": u": 1,}`, `{"t\": u": 1}`, []string{FixTrailingComma}},
		{"escaped backslash ending a key", `{"e\\": 1,}`, `{"e\\": 1}`, []string{FixTrailingComma}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkRepair(t, tt.input, tt.want, tt.fixes) })
	}
}
