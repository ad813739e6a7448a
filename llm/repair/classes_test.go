package repair

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// TestRepairClasses covers the classes of broken JSON that other repairers'
// test suites hold and that the cascade once got wrong (issue 17). Each class
// has several inputs written for it, so that the class is fixed, not one
// example: want is the expected value (compared decoded), and fix a fix that
// must be reported.
func TestRepairClasses(t *testing.T) {
	tests := []struct {
		class, name string
		input, want string
		fix         string
	}{
		// Raw newlines just before a closing quote: dropped, in keys and values.
		{"newline before quote", "key", "{\"name\n\": 1}", `{"name":1}`, FixEscapeControlChars},
		{"newline before quote", "value", "{\"a\": \"x\n\"}", `{"a":"x"}`, FixEscapeControlChars},
		{"newline before quote", "crlf and spaces", "{\"a\": \"x \r\n\", \"b\": 2}", `{"a":"x ","b":2}`, FixEscapeControlChars},
		{"newline before quote", "array item", "[\"x\n\", \"y\n\"]", `["x","y"]`, FixEscapeControlChars},
		{"newline before quote", "inner newline kept", "{\"a\": \"x\ny\n\"}", `{"a":"x\ny"}`, FixEscapeControlChars},

		// Text after a string has closed, before the next comma or brace: the
		// string ends, the junk is dropped.
		{"junk after string", "literal word", `{"b": "ok" true}`, `{"b":"ok"}`, FixTrim},
		{"junk after string", "word then comma", `{"a": "x" y, "b": 2}`, `{"a":"x","b":2}`, FixTrim},
		{"junk after string", "hash comment", "{\"a\": \"x\" # note\n, \"b\": 2}", `{"a":"x","b":2}`, FixTrim},
		{"junk after string", "hash comment with quotes", "{\"a\": \"x\" # the \"note\"\n}", `{"a":"x"}`, FixTrim},
		{"junk after string", "stray fence", "{\"a\": \"x\"```\n}", `{"a":"x"}`, FixTrim},
		{"junk after string", "words before a comma", `{"a": "v" more words here, "b": 1}`, `{"a":"v","b":1}`, FixTrim},
		{"junk after string", "array", `["a" b, "c"]`, `["a","c"]`, FixTrim},

		// An object closed too early with more members after it: merged.
		{"closed too early", "top level", `{"a": 1}, "b": 2}`, `{"a":1,"b":2}`, FixCloseBrackets},
		{"closed too early", "unquoted key", `{"a": 1}, b: "x"}`, `{"a":1,"b":"x"}`, FixCloseBrackets},
		{"closed too early", "nested", `{"o": {"a": 1}, "b": 2}, "c": 3}`, `{"o":{"a":1},"b":2,"c":3}`, FixCloseBrackets},
		{"closed too early", "cut after", `{"a": 1}, "b": 2`, `{"a":1,"b":2}`, FixCloseBrackets},
		{"closed too early", "nested object before", `{"a": 1, "b": {"c": 2}}, "d": 3}`, `{"a":1,"b":{"c":2},"d":3}`, FixCloseBrackets},
		{"closed too early", "in an array", `[{"a": 1}, "b": 2}]`, `[{"a":1,"b":2}]`, FixCloseBrackets},

		// A wrong closing bracket or a stray ')'.
		{"wrong bracket", "array closed by brace", `["x", "y"}`, `["x","y"]`, FixCloseBrackets},
		{"wrong bracket", "object closed by bracket", `{"a": 1]`, `{"a":1}`, FixCloseBrackets},
		{"wrong bracket", "nested", `{"a": ["x"}}`, `{"a":["x"]}`, FixCloseBrackets},
		{"wrong bracket", "stray paren before comma", `{"a": 1), "b": 2}`, `{"a":1,"b":2}`, FixCloseBrackets},
		{"wrong bracket", "paren closes array", `[1, 2)`, `[1,2]`, FixCloseBrackets},
		{"wrong bracket", "paren before brace", `{"a": [1, 2)}`, `{"a":[1,2]}`, FixCloseBrackets},

		// Prose before the JSON.
		{"prose", "apostrophe", `Here's the JSON: {"a": 1}`, `{"a":1}`, FixStripProse},
		{"prose", "curly apostrophe", "Here’s what I’ll send:\n{\"a\": 1}", `{"a":1}`, FixStripProse},
		{"prose", "bold label", `**Answer**: {"a": 1}`, `{"a":1}`, FixStripProse},
		{"prose", "numbered", "(1) The arguments are\n{\"a\": 1}", `{"a":1}`, FixStripProse},
		{"prose", "bullets", "- first the path\n- then the flag\n{\"a\": 1}", `{"a":1}`, FixStripProse},
		{"prose", "numbered list", "1. First the path\n2. Then the flag\n{\"a\": 1}", `{"a":1}`, FixStripProse},
		{"prose", "block quote", "> a note\n{\"a\": 1}", `{"a":1}`, FixStripProse},
		{"prose", "star bullets and fence", "* note one\n* note two\n```json\n{\"a\": 1}\n```", `{"a":1}`, FixStripProse},

		// Python tuples become arrays.
		{"tuple", "value", `{"a": (1, 2)}`, `{"a":[1,2]}`, FixPythonLiterals},
		{"tuple", "top level", `(1, "x")`, `[1,"x"]`, FixPythonLiterals},
		{"tuple", "nested", `{"p": [(1, 2), (3, 4)]}`, `{"p":[[1,2],[3,4]]}`, FixPythonLiterals},
		{"tuple", "nested tuples", `{"p": ((1, 2), (3,))}`, `{"p":[[1,2],[3]]}`, FixPythonLiterals},
		{"tuple", "empty", `{"a": ()}`, `{"a":[]}`, FixPythonLiterals},

		// Unquoted values holding / or braces become strings.
		{"unquoted slash", "fraction", `{"r": 3/4}`, `{"r":"3/4"}`, FixUnquotedStrings},
		{"unquoted slash", "date", `{"d": 12/31/2024, "n": 1}`, `{"d":"12/31/2024","n":1}`, FixUnquotedStrings},
		{"unquoted slash", "literal then slash", `{"a": true/false}`, `{"a":"true/false"}`, FixUnquotedStrings},
		{"unquoted braces", "placeholder", `{"msg": Hello {name}!}`, `{"msg":"Hello {name}!"}`, FixUnquotedStrings},
		{"unquoted braces", "index", `{"v": a[0], "w": 1}`, `{"v":"a[0]","w":1}`, FixUnquotedStrings},

		// Doubled quotes.
		{"doubled quotes", "value", `{"a": ""x""}`, `{"a":"x"}`, FixInnerQuotes},
		{"doubled quotes", "key", `{""a"": 1}`, `{"a":1}`, FixInnerQuotes},
		{"doubled quotes", "array", `[""x"", ""y z""]`, `["x","y z"]`, FixInnerQuotes},
		{"doubled quotes", "empty string stays", `{"a": "", "b": 1}`, `{"a":"","b":1}`, ""},

		// An unclosed string holding commas is not split into invented members.
		{"unclosed commas", "object", `{"a": "x, y, z}`, `{"a":"x, y, z"}`, FixCloseString},
		{"unclosed commas", "then a member", `{"a": "x, y, "b": 1}`, `{"a":"x, y","b":1}`, FixCloseString},
		{"unclosed commas", "nested", `{"o": {"a": "one, two}}`, `{"o":{"a":"one, two"}}`, FixCloseString},

		// JSON or a Markdown link inside a string value stays text.
		{"text in string", "json", `{"code": "{"x": 1}"}`, `{"code":"{\"x\": 1}"}`, FixInnerQuotes},
		{"text in string", "json list", `{"code": "["a", "b"]", "n": 1}`, `{"code":"[\"a\", \"b\"]","n":1}`, FixInnerQuotes},
		{"text in string", "json after text", `{"md": "[a](b) and {"k": 1}"}`, `{"md":"[a](b) and {\"k\": 1}"}`, FixInnerQuotes},
		{"text in string", "markdown link", `{"a": "see [docs](https://x.io/a) now"}`, `{"a":"see [docs](https://x.io/a) now"}`, ""},
		{"text in string", "markdown link unclosed", `{"a": "see [docs](https://x.io/a)`, `{"a":"see [docs](https://x.io/a)"}`, FixCloseString},

		// Quote variants.
		{"quotes", "fullwidth", `｛＂a＂：＂b＂｝`, `{"a":"b"}`, FixCurlyQuotes},
		{"quotes", "fullwidth keeps text", `｛＂a＂：＂时间：10点＂，＂n＂：1｝`, `{"a":"时间：10点","n":1}`, FixCurlyQuotes},
		{"quotes", "fullwidth quotes in ascii json", `{＂a＂: ＂b＂}`, `{"a":"b"}`, FixCurlyQuotes},
		{"quotes", "low-9", `{„a“: „b“}`, `{"a":"b"}`, FixCurlyQuotes},
		{"quotes", "low-9 closed straight", `{"a": „b"}`, `{"a":"b"}`, FixCurlyQuotes},
		{"quotes", "high-reversed-9", `{"a": ‟b”}`, `{"a":"b"}`, FixCurlyQuotes},
		{"quotes", "mixed curly and straight", `{“a": "b”}`, `{"a":"b"}`, FixCurlyQuotes},
		{"quotes", "straight closed curly", `{"a”: "b”, "c": 1}`, `{"a":"b","c":1}`, FixCurlyQuotes},

		// Input cut right after an opening quote.
		{"cut after quote", "object", `{"`, `{}`, FixCloseBrackets},
		{"cut after quote", "array", `["`, `[]`, FixCloseBrackets},
		{"cut after quote", "after a member", `{"a": 1, "`, `{"a":1}`, FixCloseBrackets},
		{"cut after quote", "after an item", `["a", "`, `["a"]`, FixCloseBrackets},

		// key: value inside an array becomes an object in it.
		{"key in array", "one pair", `["a": 1]`, `[{"a":1}]`, FixCloseBrackets},
		{"key in array", "pairs", `["a": 1, "b": 2]`, `[{"a":1,"b":2}]`, FixCloseBrackets},
		{"key in array", "after an item", `[1, "b": 2]`, `[1,{"b":2}]`, FixCloseBrackets},
		// Set-like objects become arrays.
		{"set", "single quotes", `{'a', 'b'}`, `["a","b"]`, FixSingleQuotes},
		{"set", "one item", `{"a"}`, `["a"]`, FixPythonLiterals},
		{"set", "numbers", `{"s": {1, 2, 3}}`, `{"s":[1,2,3]}`, FixPythonLiterals},
		// A missing [.
		{"missing [", "member", `{"tags": "a", "b"]}`, `{"tags":["a","b"]}`, FixCloseBrackets},
		{"missing [", "member then more", `{"n": 1, 2, 3], "m": 4}`, `{"n":[1,2,3],"m":4}`, FixCloseBrackets},
		{"missing [", "top level", `"a", "b"]`, `["a","b"]`, FixMultipleValues},

		// An invalid escape: the backslash is dropped (paths keep theirs).
		{"invalid escape", "letter", `{"a": "\q"}`, `{"a":"q"}`, FixEscapeBackslashes},
		{"invalid escape", "with valid escapes", `{"a": "x\qy\n"}`, `{"a":"xqy\n"}`, FixEscapeBackslashes},
		{"invalid escape", "regex", `{"re": "\d+"}`, `{"re":"d+"}`, FixEscapeBackslashes},
		{"invalid escape", "drive path kept", `{"p": "C:\Users\me"}`, `{"p":"C:\\Users\\me"}`, FixEscapeBackslashes},
		{"invalid escape", "several", `{"a": "b\qc\e"}`, `{"a":"bqce"}`, FixEscapeBackslashes},
		{"invalid escape", "unc path kept", `{"p": "\\server\share"}`, `{"p":"\\server\\share"}`, FixEscapeBackslashes},
		{"invalid escape", "rooted path kept", `{"p": "\documents\data"}`, `{"p":"\\documents\\data"}`, FixEscapeBackslashes},

		// Issue 27. A literal cut off by the end of the input is completed.
		{"cut literal", "true", `{"ok": tru`, `{"ok":true}`, FixCloseLiteral},
		{"cut literal", "null in array", `[1, nul`, `[1,null]`, FixCloseLiteral},
		{"cut literal", "false then space", "{\"on\": fals \n", `{"on":false}`, FixCloseLiteral},
		{"cut literal", "one letter", `{"x": [f`, `{"x":[false]}`, FixCloseLiteral},
		{"cut literal", "python spelling", `{"v": Tr`, `{"v":true}`, FixCloseLiteral},
		{"cut literal", "not cut stays text", `{"w": tru}`, `{"w":"tru"}`, FixUnquotedStrings},
		{"cut literal", "other word stays text", `{"w": nope`, `{"w":"nope"}`, FixUnquotedStrings},

		// A string cut off by the end keeps its trailing line break.
		{"cut string newline", "value", "{\"t\": \"line one\n", `{"t":"line one\n"}`, FixCloseString},
		{"cut string newline", "two breaks", "[\"a\n\n", `["a\n\n"]`, FixCloseString},
		{"cut string newline", "spaces dropped", "{\"t\": \"x  ", `{"t":"x"}`, FixCloseString},

		// Backtick-quoted strings, keys and values.
		{"backticks", "value", "{\"cmd\": `ls -la`}", `{"cmd":"ls -la"}`, FixCurlyQuotes},
		{"backticks", "key", "{`path`: \"/tmp\"}", `{"path":"/tmp"}`, FixCurlyQuotes},
		{"backticks", "array", "[`a`, `b c`]", `["a","b c"]`, FixCurlyQuotes},
		{"backticks", "multi-line", "{\"sql\": `SELECT 1\nFROM t`}", `{"sql":"SELECT 1\nFROM t"}`, FixCurlyQuotes},

		// HTML comments between tokens are dropped.
		{"html comment", "before value", `<!-- args --> {"a": 1}`, `{"a":1}`, FixComments},
		{"html comment", "inside object", `{"a": 1, <!-- the rest --> "b": 2}`, `{"a":1,"b":2}`, FixComments},
		{"html comment", "after value", `[1, 2] <!-- done -->`, `[1,2]`, FixComments},
		{"html comment", "multi-line", "{\"a\": <!-- x\ny --> 3}", `{"a":3}`, FixComments},
		{"html comment", "in string kept", `{"h": "<!-- c -->"}`, `{"h":"<!-- c -->"}`, ""},

		// A word joined to a quoted string, with no space: the stray prefix is
		// dropped.
		{"joined prefix", "value", `{"a": h"that"}`, `{"a":"that"}`, FixTrim},
		{"joined prefix", "array item", `["x", q"y"]`, `["x","y"]`, FixTrim},
		{"joined prefix", "python raw string", `{"re": r"\d+"}`, `{"re":"\\d+"}`, FixTrim},

		// Runs of empty commas.
		{"empty commas", "array", `[1,,,2]`, `[1,2]`, FixTrailingComma},
		{"empty commas", "object", `{"a": 1,,, "b": 2}`, `{"a":1,"b":2}`, FixTrailingComma},
		{"empty commas", "leading", `[, , "x"]`, `["x"]`, FixTrailingComma},
		{"empty commas", "object leading", `{,, "a": 1}`, `{"a":1}`, FixTrailingComma},
		{"empty commas", "trailing run", `[1,,,]`, `[1]`, FixTrailingComma},

		// \0 is the NUL character, as in JavaScript and Python.
		{"nul escape", "alone", `{"s": "a\0b"}`, `{"s":"a\u0000b"}`, FixEscapeBackslashes},
		{"nul escape", "at end", `["\0"]`, `["\u0000"]`, FixEscapeBackslashes},

		// Unquoted values holding parentheses stay text.
		{"unquoted parens", "call-like word", `{"a": foo(bar)}`, `{"a":"foo(bar)"}`, FixUnquotedStrings},
		{"unquoted parens", "expression", `{"e": f(x) + 1, "n": 2}`, `{"e":"f(x) + 1","n":2}`, FixUnquotedStrings},
		{"unquoted parens", "words", `{"d": see (below) now}`, `{"d":"see (below) now"}`, FixUnquotedStrings},
		{"unquoted parens", "commas inside", `{"a": f(x, y), "b": 1}`, `{"a":"f(x, y)","b":1}`, FixUnquotedStrings},
		{"unquoted parens", "in an array", `[max(a, b), 2]`, `["max(a, b)",2]`, FixUnquotedStrings},
		{"unquoted parens", "wrapper still unwrapped", `{"n": NumberLong(2)}`, `{"n":2}`, FixFunctionCall},

		// key: value lines with no braces make an object.
		{"no braces", "lines", "name: John\nage: 30", `{"name":"John","age":30}`, FixMissingBraces},
		{"no braces", "one line", `city: Paris`, `{"city":"Paris"}`, FixMissingBraces},
		{"no braces", "quoted keys", "\"a\": 1\n\"b\": [2]", `{"a":1,"b":[2]}`, FixMissingBraces},
		{"no braces", "commas", `a: 1, b: true`, `{"a":1,"b":true}`, FixMissingBraces},

		// Trailing junk after a complete value.
		{"trailing junk", "number after array", `[1] 2`, `[1]`, FixTrim},
		{"trailing junk", "number after object", `{"a": 1} 42`, `{"a":1}`, FixTrim},
		{"trailing junk", "quote after object", `{"a": 1} "x`, `{"a":1}`, FixTrim},
		{"trailing junk", "lines still several values", "[1]\n[2]", `[[1],[2]]`, FixMultipleValues},
	}
	for _, tt := range tests {
		t.Run(tt.class+"/"+tt.name, func(t *testing.T) {
			out, fixes, err := Repair(tt.input)
			if err != nil {
				t.Fatalf("Repair(%q): %v", tt.input, err)
			}
			if !json.Valid([]byte(out)) {
				t.Fatalf("Repair(%q) = %q: not valid JSON", tt.input, out)
			}
			var got, want any
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatalf("bad want %q: %v", tt.want, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Repair(%q) = %s, want %s (fixes %q)", tt.input, out, tt.want, fixes)
			}
			if tt.fix != "" && !slices.Contains(fixes, tt.fix) {
				t.Errorf("Repair(%q) fixes = %q, want them to include %s", tt.input, fixes, tt.fix)
			}
			again, more, err := Repair(out)
			if err != nil || again != out || more != nil {
				t.Errorf("Repair(Repair(%q)) = %q, %q, %v; want it unchanged", tt.input, again, more, err)
			}
		})
	}
}
