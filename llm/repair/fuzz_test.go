package repair

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// fuzzSeeds are broken inputs in the style of the corpora, written here so that
// the fuzz target needs nothing outside the package.
var fuzzSeeds = []string{
	`{"a":2.3e100,"b":"str","c":null}`, `[1, 2, 3,`, `{"a":["x","y",`, `{"foo":`, `{"a":"b}`,
	`{a:1, "b":'x'}`, `{"a":True,"b":None}`, "{\"a\":1 // c\n/* d */}", "```json\n{\"a\":1}\n```",
	`Here is your JSON: {"key": "value`, `{"a": "John is "good", hah"}`, `{"p":"C:\Users\new"}`,
	"{\"a\":\"x\ny\"}", `{“a”: ‘b’}`, "\uFEFF{\"a\":\u200b1}", `callback_123({"a":1});`,
	`{"_id":ObjectId("123")}`, `"hello" + " world"`, `[1,2,3,...]`, "1\n2\n3", `{"a":2}}]`,
	`[{"i":1{"i":2}]`, `{"a":"b,"c":"d"}`, `\"hello \\"world\\"\"`, `/[a-z]+/gi`, `[0789, .5, 2., -]`,
	`{"a" ]`, `{:2}`, `"\u26"`, `{"a":2}foo`, `["a" 2`, `{"s \ud`, `'It\'s'`, `{"a":"x\\`,
	`{"a": hello (world), "b": f(1 2)}`, `cb /* x */ ({"a":1})`, `[f([f([1] x] x]`, `f(g(h(1 x`, `"\'"`,
	// The classes of issue 17.
	"{\"name\n\": 1}", `{"b": "ok" true}`, "{\"a\": \"x\" # n\n}", `{"a": 1}, "b": 2}`, `["x", "y"}`, `{"a": 1), "b": 2}`,
	`Here's **it**: {"a": 1}`, "(1) - x\n{\"a\":1}", `{"a": (1, 2)}`, `{"r": 3/4, "m": Hi {n}!}`, `{""a"": ""x""}`,
	`{"a": "x, y, z}`, `{"c": "{"x": 1}"}`, `｛＂a＂：＂时间：1＂｝`, `{„a“: "b”}`, `{"`, `["`, `["a": 1]`, `{'a', 'b'}`,
	`{"t": "a", "b"]}`, `{"a": "\q\d"}`, `"\documents\data"`,
	// A backslash before a closing quote.
	`["C:\", 1]`, `{"a": "x\", "b": 2}`, `{"a": "say \"hi\"}`, `{"a\": 1}`,
	// Valid JSON: trailingCommaAgrees adds a comma to reach the repairing pass.
	`["D:\\", 2]`, `{"C:\\Users\\a": "E:\\"}`, `{"a\"b": 1}`,
}

func FuzzRepair(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if valid(in) != json.Valid([]byte(in)) {
			t.Fatalf("valid(%q) = %v, json.Valid says %v", in, valid(in), !valid(in))
		}
		out, fixes, err := Repair(in)
		if err != nil {
			if !errors.Is(err, ErrUnrepairable) {
				t.Fatalf("Repair(%q): error %v does not wrap ErrUnrepairable", in, err)
			}
			return
		}
		if !json.Valid([]byte(out)) {
			t.Fatalf("Repair(%q) = %q: not valid JSON (fixes %q)", in, out, fixes)
		}
		if !valid(in) && len(fixes) == 0 {
			t.Fatalf("Repair(%q) = %q with no fixes, but the input is not valid JSON", in, out)
		}
		if valid(in) && (out != in || len(fixes) != 0) {
			t.Fatalf("Repair(%q) = %q, %q: valid JSON must come back unchanged with no fixes", in, out, fixes)
		}
		if valid(in) {
			trailingCommaAgrees(t, in)
		}
		again, more, err := Repair(out)
		if err != nil || again != out || len(more) != 0 {
			t.Fatalf("Repair(%q) = %q; repairing it again gave %q, %q, %v", in, out, again, more, err)
		}
	})
}

// trailingCommaAgrees checks the fix list of the repairing pass on valid JSON
// text in, which Repair itself returns by its fast path: with a comma added
// before the last closing bracket, the repair must give in's value back and
// list trailing_comma alone. The one other fix allowed is escape_backslashes,
// listed exactly when the value changed: a string starting with a drive letter
// keeps its backslashes as text (the package's path policy).
func trailingCommaAgrees(t *testing.T, in string) {
	e := lastNonSpace(in, 0, len(in))
	if e < 1 || (in[e] != ']' && in[e] != '}') {
		return
	}
	if b := in[lastNonSpace(in, 0, e)]; b == '[' || b == '{' {
		return // an empty container takes no comma
	}
	with := in[:e] + "," + in[e:]
	out, fixes, err := Repair(with)
	if err != nil {
		t.Fatalf("Repair(%q): %v", with, err)
	}
	var want, got any
	if json.Unmarshal([]byte(in), &want) != nil || json.Unmarshal([]byte(out), &got) != nil {
		return // numbers beyond float64, which this comparison cannot decode
	}
	changed := !reflect.DeepEqual(got, want)
	ok := len(fixes) == 1 && fixes[0] == FixTrailingComma && !changed ||
		len(fixes) == 2 && fixes[0] == FixEscapeBackslashes && fixes[1] == FixTrailingComma && changed
	if !ok {
		t.Fatalf("Repair(%q) = %q, %q; want %q's value with [trailing_comma] (value changed: %v)", with, out, fixes, in, changed)
	}
}
