package repair

import "math/bits"

// The fix names, in cascade order: least invasive first. They are stable: events,
// goldens and scenario expectations (expect.repairs) refer to them.
const (
	// FixTrim drops stray text around the value: a trailing semicolon, surplus
	// closing brackets after a complete value, junk after a string's closing
	// quote.
	FixTrim = "trim"
	// FixStripBOM removes a byte-order mark or zero-width character, and turns a
	// non-ASCII space (no-break, ideographic, …) between tokens into a plain space.
	FixStripBOM = "strip_bom"
	// FixComments removes // line and /* block */ comments.
	FixComments = "comments"
	// FixStripProse removes prose before and after the value, and a Markdown code
	// fence (three or more backticks, with or without a language) around it.
	FixStripProse = "strip_prose"
	// FixEscapeControlChars escapes a literal newline, tab, carriage return,
	// backspace or form feed inside a string (and a backslash before a newline),
	// and drops a line break just before a closing quote.
	FixEscapeControlChars = "escape_control_chars"
	// FixEscapeBackslashes keeps a backslash that does not start a valid escape
	// in a path, and drops it elsewhere: see the package doc for the policy. It
	// also keeps a backslash just before a string's closing quote, "C:\", or a
	// key's, {"a\": 1}. It is listed only when a backslash of the input changed.
	FixEscapeBackslashes = "escape_backslashes"
	// FixTrailingComma removes a comma before a closing bracket, at the end of the
	// input, or doubled.
	FixTrailingComma = "trailing_comma"
	// FixMissingComma inserts a comma between two values or members.
	FixMissingComma = "missing_comma"
	// FixMissingColon inserts the colon between a key and its value.
	FixMissingColon = "missing_colon"
	// FixCurlyQuotes accepts typographic quotes (“ ” „ ‘ ’), backticks and
	// fullwidth quotes as string delimiters, and JSON written with fullwidth
	// brackets, colons and commas.
	FixCurlyQuotes = "curly_quotes"
	// FixSingleQuotes accepts 'single-quoted' strings (and \' escapes).
	FixSingleQuotes = "single_quotes"
	// FixUnquotedKeys quotes an object key written without quotes.
	FixUnquotedKeys = "unquoted_keys"
	// FixUnquotedStrings quotes a bare word or text used as a value.
	FixUnquotedStrings = "unquoted_strings"
	// FixInnerQuotes escapes a double quote inside a string that is not its end,
	// and reads doubled quotes ""x"" as one.
	FixInnerQuotes = "inner_quotes"
	// FixPythonLiterals turns True, False, None and other spellings of true,
	// false and null (TRUE, Null, …) into JSON literals, and tuples and sets
	// into arrays.
	FixPythonLiterals = "python_literals"
	// FixJSLiterals turns undefined into null.
	FixJSLiterals = "js_literals"
	// FixNumbers completes or normalises a number: 2. → 2.0, .5 → 0.5, 1e → 1e0,
	// - → -0.
	FixNumbers = "numbers"
	// FixConcatenation joins strings concatenated with + into one.
	FixConcatenation = "concatenation"
	// FixFunctionCall unwraps a value wrapped in a call: JSONP callback({...}),
	// MongoDB ObjectId("…"), NumberLong(…). A name before a parenthesis is a
	// call only when a ) closes the argument and, if a space comes before the (,
	// the argument is an object or array; otherwise it is text: see (below).
	FixFunctionCall = "function_call"
	// FixEllipsis removes a ... placeholder from an array or object.
	FixEllipsis = "ellipsis"
	// FixMultipleValues wraps several top-level values (one a line, or separated
	// by commas) in an array.
	FixMultipleValues = "multiple_values"
	// FixMissingValue inserts null for a key without a value.
	FixMissingValue = "missing_value"
	// FixCloseLiteral completes a literal cut short by the end of the input:
	// tru → true, nul → null, fals → false (and Tr → true, Non → null).
	FixCloseLiteral = "close_literal"
	// FixCloseString closes a string cut short by the end of the input (or ended
	// by a bracket or comma where its closing quote is missing).
	FixCloseString = "close_string"
	// FixCloseBrackets closes arrays and objects left open, corrects a
	// mismatched closing bracket or a stray ), merges an object closed too
	// early with the members after it, and adds the brackets missing around
	// key: value in an array or at the start of an array.
	FixCloseBrackets = "close_brackets"
	// FixMissingBraces wraps key: value lines written with no braces at all
	// (name: John, a line each or separated by commas) in an object.
	FixMissingBraces = "missing_braces"
)

// fix is a set of fixes, one bit each, in cascade order.
type fix uint32

const (
	fixTrim fix = 1 << iota
	fixStripBOM
	fixComments
	fixStripProse
	fixEscapeControlChars
	fixEscapeBackslashes
	fixTrailingComma
	fixMissingComma
	fixMissingColon
	fixCurlyQuotes
	fixSingleQuotes
	fixUnquotedKeys
	fixUnquotedStrings
	fixInnerQuotes
	fixPythonLiterals
	fixJSLiterals
	fixNumbers
	fixConcatenation
	fixFunctionCall
	fixEllipsis
	fixMultipleValues
	fixMissingValue
	fixCloseLiteral
	fixCloseString
	fixCloseBrackets
	fixMissingBraces
	fixCount = iota
)

// fixNames is indexed by bit position.
var fixNames = [fixCount]string{
	FixTrim, FixStripBOM, FixComments, FixStripProse, FixEscapeControlChars,
	FixEscapeBackslashes, FixTrailingComma, FixMissingComma, FixMissingColon,
	FixCurlyQuotes, FixSingleQuotes, FixUnquotedKeys, FixUnquotedStrings,
	FixInnerQuotes, FixPythonLiterals, FixJSLiterals, FixNumbers, FixConcatenation,
	FixFunctionCall, FixEllipsis, FixMultipleValues, FixMissingValue,
	FixCloseLiteral, FixCloseString, FixCloseBrackets, FixMissingBraces,
}

// Fixes returns the names of all fixes in cascade order, least invasive first.
func Fixes() []string {
	return append([]string(nil), fixNames[:]...)
}

// names lists the fixes of the set in cascade order; never nil.
func (s fix) names() []string {
	out := make([]string, 0, bits.OnesCount32(uint32(s)))
	for b := uint32(s); b != 0; b &= b - 1 {
		out = append(out, fixNames[bits.TrailingZeros32(b)])
	}
	return out
}
