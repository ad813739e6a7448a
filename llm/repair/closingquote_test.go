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
// pair up (\"yes\"), stay quotes in the text.
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

		// Quotes that stay escaped (each input has another defect, so that it
		// goes through the repairing pass, not the strict fast path).
		{"escaped quotes closed later", `{"q": "said \"yes\" twice",}`, `{"q": "said \"yes\" twice"}`, []string{FixTrailingComma}},
		{"escaped quote before a comma in the text", `{"q": "x\", y", 'k': 1}`, `{"q": "x\", y", "k": 1}`, []string{FixSingleQuotes}},
		{"escaped backslash then the closing quote", `["dir\\", 2,]`, `["dir\\", 2]`, []string{FixTrailingComma}},
		{"escaped backslash and escaped quote", `["v\\\"", 1,]`, `["v\\\"", 1]`, []string{FixTrailingComma}},
		{"paired escaped quotes, closing quote missing", `{"q": "say \"hi\"}`, `{"q": "say \"hi\""}`, []string{FixCloseString}},
		{"cut after an escaped quote", `{"q": "say \"`, `{"q": "say \""}`, []string{FixCloseString, FixCloseBrackets}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkRepair(t, tt.input, tt.want, tt.fixes) })
	}
}
