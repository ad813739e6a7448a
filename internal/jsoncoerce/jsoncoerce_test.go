package jsoncoerce

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestValue(t *testing.T) {
	schema := map[string]any{"type": "object",
		"properties": map[string]any{
			"n":     map[string]any{"type": "integer"},
			"f":     map[string]any{"type": "number"},
			"ok":    map[string]any{"type": "boolean"},
			"none":  map[string]any{"type": []any{"null", "string"}},
			"nil":   map[string]any{"type": "null"},
			"s":     map[string]any{"type": "string"},
			"obj":   map[string]any{"type": "object", "properties": map[string]any{"d": map[string]any{"type": "integer"}}},
			"list":  map[string]any{"type": "array", "items": map[string]any{"type": "integer"}},
			"float": map[string]any{"type": "integer"},
			"bad":   map[string]any{"type": "integer"},
		},
		"additionalProperties": map[string]any{"type": "boolean"},
	}
	v := map[string]any{
		"n": "3", "f": "1.5e3", "ok": "TRUE", "none": "None", "nil": "None", "s": json.Number("12"),
		"obj": `{"d": "4"}`, "list": []any{"1", json.Number("2")}, "float": "3.0", "bad": "three", "extra": "false",
	}
	var log []string
	got := Value(v, schema, "", &Options{Record: func(p, from, to string) { log = append(log, p+" "+from+"->"+to) }})
	want := map[string]any{
		"n": json.Number("3"), "f": json.Number("1.5e3"), "ok": true, "none": "None", "nil": nil, "s": "12",
		"obj": map[string]any{"d": json.Number("4")}, "list": []any{json.Number("1"), json.Number("2")},
		"float": json.Number("3"), "bad": "three", "extra": false,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
	wantLog := []string{"/extra string->boolean", "/f string->number", "/float string->integer", "/list/0 string->integer",
		"/n string->integer", "/nil string->null", "/obj string->object", "/obj/d string->integer", "/ok string->boolean", "/s number->string"}
	if !reflect.DeepEqual(log, wantLog) {
		t.Errorf("log  %q\nwant %q", log, wantLog)
	}
}

func TestDecodeHook(t *testing.T) {
	schema := map[string]any{"type": "array"}
	if _, _, ok := fromString(`[1, 2,]`, Types(schema), &Options{}); ok {
		t.Error("strict decoding accepted a trailing comma")
	}
	lenient := &Options{Decode: func(string) (any, bool) { return []any{json.Number("1")}, true }}
	if v := Value(`[1,]`, schema, "", lenient); !reflect.DeepEqual(v, []any{json.Number("1")}) {
		t.Errorf("the Decode hook was not used: %#v", v)
	}
	if v := Value(`{"a": 1}`, schema, "", nil); v != `{"a": 1}` {
		t.Errorf("an object's text was coerced to an array: %#v", v)
	}
}

func TestDecode(t *testing.T) {
	for _, text := range []string{`{"a":1}}`, `{"a":1} x`, `[1]]`, ``} {
		if _, err := Decode(text); err == nil {
			t.Errorf("Decode(%q) accepted trailing or missing data", text)
		}
	}
	if v, err := Decode(` {"a": 1.0} `); err != nil || !reflect.DeepEqual(v, map[string]any{"a": json.Number("1.0")}) {
		t.Errorf("Decode: %#v, %v", v, err)
	}
}

func TestHasNumber(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{`{"text":"t123"}`, false},
		{`{"a":"1","b":["-2",true,null,false]}`, false},
		{`{"quote \"9\" inside":"and \\"}`, false},
		{`{"a":1}`, true},
		{`[-0.5]`, true},
		{`{"s":"\\","n":7}`, true}, // the escaped backslash ends before the quote
		{`{"s":"\"","n":7}`, true},
		{`"unterminated 5`, false},
		{``, false},
	} {
		if got := HasNumber(tc.text); got != tc.want {
			t.Errorf("HasNumber(%q) = %v, want %v", tc.text, got, tc.want)
		}
		if got := HasNumber([]byte(tc.text)); got != tc.want {
			t.Errorf("HasNumber([]byte(%q)) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// decodeSeeds are texts Decode takes one way or the other: with and without
// numbers, valid and not, with trailing data and space.
var decodeSeeds = []string{
	`{"text":"t1"}`, ` {"a": ["x", true, null, {"b": "\u00e9\ud83d\ude00"}]} `, `{"a":"1"} x`, `{"a":"1"}}`,
	`{"n": 1e400}`, `{"n": 12345678901234567890}`, `[1, -2.50, "3"]`, `""`, `"\ud800"`, "\"\xff\"", ``, ` `,
	`{"a":1,"a":"2"}`, `{"a":"x","a":"y"}`, `nul`, `{"a" "b"}`, `[[[[]]]]`,
}

// checkDecode asserts that Decode gives what decoding with a json.Decoder
// and numbers as json.Number gives: the same value, and an error exactly
// when it fails.
func checkDecode(t *testing.T, text string) {
	got, gotErr := Decode(text)
	want, wantErr := decodeNumbers(text)
	if (gotErr == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
		t.Fatalf("Decode(%q) = %#v, %v; a decoder gives %#v, %v", text, got, gotErr, want, wantErr)
	}
	if gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("Decode(%q) fails with %q; a decoder with %q", text, gotErr, wantErr)
	}
}

func TestDecodeAsADecoderDoes(t *testing.T) {
	for _, text := range decodeSeeds {
		checkDecode(t, text)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add(s)
	}
	f.Fuzz(checkDecode)
}
