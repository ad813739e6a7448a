package repair

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestRepair(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  string // expected value, compared decoded
		fixes []string
	}{
		{"valid", `{"a":[1,2]}`, `{"a":[1,2]}`, nil},
		{"cut after comma in array", `[1, 2, 3,`, `[1,2,3]`, []string{FixTrailingComma, FixCloseBrackets}},
		{"cut after comma nested", `{"a":["x","y",`, `{"a":["x","y"]}`, []string{FixTrailingComma, FixCloseBrackets}},
		{"cut mid-string", `{"a":"hel`, `{"a":"hel"}`, []string{FixCloseString, FixCloseBrackets}},
		{"cut mid-key", `{"ke`, `{"ke":null}`, []string{FixMissingValue, FixCloseString, FixCloseBrackets}},
		{"cut mid-number", `{"a":1.`, `{"a":1.0}`, []string{FixNumbers, FixCloseBrackets}},
		{"cut after colon", `{"foo":`, `{"foo":null}`, []string{FixMissingValue, FixCloseBrackets}},
		{"brace after missing quote", `{"a":"b}`, `{"a":"b"}`, []string{FixCloseString}},
		{"plus kept after another string's missing quote", `{"a":"b,"lang":"C+"}`, `{"a":"b","lang":"C+"}`, []string{FixCloseString}},
		{"plus kept in an array after a missing quote", `["a,"C+"]`, `["a","C+"]`, []string{FixCloseString}},
		{"pluses kept in nested strings", `{"a":"b,"c":["C+","D++"]}`, `{"a":"b","c":["C+","D++"]}`, []string{FixCloseString}},
		{"plus dropped where a concatenation was cut", `{"a":"hello +`, `{"a":"hello"}`, []string{FixCloseString, FixCloseBrackets}},
		{"plus dropped before an inferred end", `{"a":"C +}`, `{"a":"C"}`, []string{FixCloseString}},
		{"mixed keys", `{a:1, "b":2, c:"x"}`, `{"a":1,"b":2,"c":"x"}`, []string{FixUnquotedKeys}},
		{"single and double quotes", `{'a':"b", "c":'d'}`, `{"a":"b","c":"d"}`, []string{FixSingleQuotes}},
		{"python literals", `{"a":True,"b":False,"c":None}`, `{"a":true,"b":false,"c":null}`, []string{FixPythonLiterals}},
		{"upper-case literals", `{"a":TRUE,"b":Null}`, `{"a":true,"b":null}`, []string{FixPythonLiterals}},
		{"comments", "{\"a\":1 // one\n, /* two */ \"b\":2}", `{"a":1,"b":2}`, []string{FixComments}},
		{"fence", "```json\n{\"a\":1}\n```", `{"a":1}`, []string{FixStripProse}},
		{"fence of four", "````\n{\"a\":1}\n````", `{"a":1}`, []string{FixStripProse}},
		{"prose before", `Here is your JSON: {"key": "value`, `{"key":"value"}`, []string{FixStripProse, FixCloseString, FixCloseBrackets}},
		{"prose around fence", "Sure!\n```json\n{\"a\":1}\n```\nHope this helps.", `{"a":1}`, []string{FixStripProse}},
		{"prose after", "{\"a\":1}\nHope this helps.", `{"a":1}`, []string{FixStripProse}},
		{"inner quotes", `{"a": "John is "good", hah"}`, `{"a":"John is \"good\", hah"}`, []string{FixInnerQuotes}},
		{"escaped single quote", `{"a":"It\'s"}`, `{"a":"It's"}`, []string{FixSingleQuotes}},
		{"windows path", `{"p":"C:\Users\new"}`, `{"p":"C:\\Users\\new"}`, []string{FixEscapeBackslashes}},
		{"windows path with valid escapes only", `{"p":"D:\new\temp", "q":1`, `{"p":"D:\\new\\temp","q":1}`, []string{FixEscapeBackslashes, FixCloseBrackets}},
		{"control chars", "{\"a\":\"line1\nline2\tx\"}", `{"a":"line1\nline2\tx"}`, []string{FixEscapeControlChars}},
		{"curly double quotes", `{“a”: “b”}`, `{"a":"b"}`, []string{FixCurlyQuotes}},
		{"curly single quotes", `{‘a’: ‘b’}`, `{"a":"b"}`, []string{FixCurlyQuotes}},
		{"bom", "\uFEFF{\"a\":1}", `{"a":1}`, []string{FixStripBOM}},
		{"zero-width space", "{\"a\":\u200b1}", `{"a":1}`, []string{FixStripBOM}},
		{"trailing comma and surplus brace", `{"a":1,}}`, `{"a":1}`, []string{FixTrim, FixTrailingComma}},
		{"missing commas", `[1 2 3]`, `[1,2,3]`, []string{FixMissingComma}},
		{"missing colon", `{"a" 1}`, `{"a":1}`, []string{FixMissingColon}},
		{"undefined", `{"a":undefined}`, `{"a":null}`, []string{FixJSLiterals}},
		{"jsonp", `callback({"a":1});`, `{"a":1}`, []string{FixFunctionCall}},
		{"jsonp with a space", "callback_123 ({\"a\":1});", `{"a":1}`, []string{FixFunctionCall}},
		{"call in a value", `{"_id": ObjectId("1"), "n": NumberLong(2)}`, `{"_id":"1","n":2}`, []string{FixFunctionCall}},
		{"word before a parenthesis", `{"a": hello (world), "b": 1}`, `{"a":"hello (world)","b":1}`, []string{FixUnquotedStrings}},
		{"parenthesised remark", `{"note": see (below)}`, `{"note":"see (below)"}`, []string{FixUnquotedStrings}},
		{"call not closed", `{"a": f(1 2), "b": g(x}`, `{"a":"f(1 2)","b":"g(x"}`, []string{FixUnquotedStrings}},
		{"concatenation", `{"a":"x" + "y"}`, `{"a":"xy"}`, []string{FixConcatenation}},
		{"concatenation ends as a member's value", `{"a": "x" + "y" b: 1}`, `{"a":"xy","b":1}`,
			[]string{FixMissingComma, FixUnquotedKeys, FixConcatenation}},
		{"concatenation ends as a top-level value", `"a" + "b" ; `, `"ab"`, []string{FixTrim, FixConcatenation}},
		{"no-break space in a call", "callback(\u00a0{\"a\":1})", `{"a":1}`, []string{FixStripBOM, FixFunctionCall}},
		{"ellipsis", `[1, 2, ...]`, `[1,2]`, []string{FixTrailingComma, FixEllipsis}},
		{"lines of values", "{\"a\":1}\n{\"a\":2}", `[{"a":1},{"a":2}]`, []string{FixMultipleValues}},
		{"bare value", `{"a": hello world}`, `{"a":"hello world"}`, []string{FixUnquotedStrings}},
		{"mismatched bracket", `{"a":[1}`, `{"a":[1]}`, []string{FixCloseBrackets}},
		{"the brief's example", `{"path": 'a.txt', "force": True,`, `{"path":"a.txt","force":true}`,
			[]string{FixTrailingComma, FixSingleQuotes, FixPythonLiterals, FixCloseBrackets}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkRepair(t, tt.input, tt.want, tt.fixes) })
	}
}

// checkRepair checks that Repair(input) is valid JSON decoding to the same
// value as want, reports exactly the fixes given (nil: none), and is left
// unchanged by a second Repair.
func checkRepair(t *testing.T, input, want string, fixes []string) {
	t.Helper()
	out, got, err := Repair(input)
	if err != nil {
		t.Fatalf("Repair(%q): %v", input, err)
	}
	if !json.Valid([]byte(out)) {
		t.Fatalf("Repair(%q) = %q: not valid JSON", input, out)
	}
	var gotValue, wantValue any
	if err := json.Unmarshal([]byte(out), &gotValue); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &wantValue); err != nil {
		t.Fatalf("bad want %q: %v", want, err)
	}
	if !reflect.DeepEqual(gotValue, wantValue) {
		t.Errorf("Repair(%q) = %s, want %s", input, out, want)
	}
	if !reflect.DeepEqual(got, fixes) {
		t.Errorf("Repair(%q) fixes = %q, want %q", input, got, fixes)
	}
	again, more, err := Repair(out)
	if err != nil || again != out || more != nil {
		t.Errorf("Repair(Repair(%q)) = %q, %q, %v; want it unchanged", input, again, more, err)
	}
}

func TestRepairValidIsUnchanged(t *testing.T) {
	for _, in := range []string{`{}`, " [1, 2] \n", `"C:\temp"`, `{"a":"\u00e9"}`, `null`} {
		out, fixes, err := Repair(in)
		if err != nil || out != in || fixes != nil {
			t.Errorf("Repair(%q) = %q, %q, %v; want it unchanged", in, out, fixes, err)
		}
	}
}

func TestRepairRefuses(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string // substrings of the message
	}{
		{"empty", ``, []string{"re-emit the call as valid JSON", "no JSON value", "line 1, column 1"}},
		{"key without colon", `{"a" ]`, []string{"unexpected ']' where ':' should follow the key", "line 1, column 6"}},
		{"missing key", `{:2}`, []string{"unexpected ':' where a key should be", "line 1, column 2"}},
		{"text after value", `{"a":2}foo`, []string{"unexpected 'f' after the JSON value", "line 1, column 8"}},
		{"fragment in prose", `The result is "x": {"a":1} and more`,
			[]string{`after the text "The result is"`, "send only the JSON value, without prose"}},
		{"fragment after an ellipsis", `... "x": {"a":1} ...`, []string{`re-emit the call as valid JSON: unexpected '"' after the text "..."; ` +
			"send only the JSON value, without prose at line 1, column 5 (tried: unquoted_strings)"}},
		{"call around an object not closed", `{"a": f({"b":1} x)}`,
			[]string{"unexpected 'x' where ')' should close the call", "line 1, column 17", "(tried: function_call)"}},
		{"bad unicode escape", `{"a":"\u26"}`, []string{`invalid \u escape`, "line 1, column 7"}},
		{"control character", "{\"a\":\"x\x01\"}", []string{"control character", "line 1, column 8"}},
		{"second line", "{\"a\":1,\n\"b\" ]", []string{"line 2, column 5"}},
		{"tried fixes listed", "{'a':1,, 'b' ]", []string{"(tried: trailing_comma, single_quotes)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, fixes, err := Repair(tt.input)
			if err == nil {
				t.Fatalf("Repair(%q) = %q, %q; want a refusal", tt.input, out, fixes)
			}
			if !errors.Is(err, ErrUnrepairable) {
				t.Errorf("errors.Is(%v, ErrUnrepairable) = false", err)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q lacks %q", err.Error(), w)
				}
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	e := &Error{Problem: "unexpected '}'", Offset: 8, Line: 1, Column: 9, Tried: []string{FixTrailingComma, FixCloseBrackets}}
	want := "re-emit the call as valid JSON: unexpected '}' at line 1, column 9 (tried: trailing_comma, close_brackets)"
	if e.Error() != want {
		t.Errorf("Error() = %q, want %q", e.Error(), want)
	}
}

func TestFixesOrder(t *testing.T) {
	want := []string{
		FixTrim, FixStripBOM, FixComments, FixStripProse, FixEscapeControlChars, FixEscapeBackslashes,
		FixTrailingComma, FixMissingComma, FixMissingColon, FixCurlyQuotes, FixSingleQuotes,
		FixUnquotedKeys, FixUnquotedStrings, FixInnerQuotes, FixPythonLiterals, FixJSLiterals,
		FixNumbers, FixConcatenation, FixFunctionCall, FixEllipsis, FixMultipleValues,
		FixMissingValue, FixCloseLiteral, FixCloseString, FixCloseBrackets, FixMissingBraces,
	}
	if got := Fixes(); !reflect.DeepEqual(got, want) {
		t.Errorf("Fixes() = %q, want %q", got, want)
	}
	names := []string{
		"trim", "strip_bom", "comments", "strip_prose", "escape_control_chars", "escape_backslashes",
		"trailing_comma", "missing_comma", "missing_colon", "curly_quotes", "single_quotes",
		"unquoted_keys", "unquoted_strings", "inner_quotes", "python_literals", "js_literals",
		"numbers", "concatenation", "function_call", "ellipsis", "multiple_values",
		"missing_value", "close_literal", "close_string", "close_brackets", "missing_braces",
	}
	if !reflect.DeepEqual(want, names) {
		t.Errorf("fix names = %q, want the stable names %q", want, names)
	}
	f := Fixes()
	f[0] = "changed"
	if Fixes()[0] != FixTrim {
		t.Error("Fixes() shares its slice with the caller")
	}
}
