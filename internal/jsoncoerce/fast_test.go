package jsoncoerce

import (
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
)

// decodeSlow is Decode's encoding/json path.
func decodeSlow(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errTrailingData
	}
	return v, nil
}

var fastSeeds = []string{
	`{"path": "log.txt"}`, `{"path": "log.txt", "content": "line 1\n"}`, ` {"a": [1, -2.5e+3, true, false, null, {}, []], "b": {"c": "d"}} `,
	`{"a": 1, "a": 2}`, `[]`, `{}`, `"x"`, `0`, `-0.1E-2`, `"héllo"`, `{"k": "\u00e9"}`, `{"k": "a\"b"}`,
	`{"a":1}}`, `{"a":1} x`, `[1]]`, ``, ` `, `01`, `1.`, `.5`, `-`, `1e`, `tru`, `truex`, `[true x]`, `nul`,
	`{"a" 1}`, `{"a":}`, `{,}`, `[,]`, `[1,]`, `{"a":1,}`, "\"a\tb\"", "\"\xff\"", `{"a":"b"`, `["a"`, `"abc`,
	strings.Repeat("[", 70) + strings.Repeat("]", 70), strings.Repeat("[", 20000), "\ufeff{}", `{"a":1}` + "\n\t ",
	`[1e400, 123456789012345678901234567890]`, `{"":""}`, `[-0, 0e0, 1E+2]`,
	`"a\nb\"c\\d\/e\bf\fg\rh\ti"`, `"\u0041"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\x"`, `"\`, `"a\"`, "\"é\\n\xff\"", `{"a\n": "\n"}`,
}

// TestDecodeFastAsEncodingJSON checks that whatever decodeFast accepts it
// decodes as encoding/json does, and that it accepts the common shapes.
func TestDecodeFastAsEncodingJSON(t *testing.T) {
	for _, text := range fastSeeds {
		checkFast(t, text)
	}
	for _, text := range []string{`{"path": "log.txt", "content": "line 1\n"}`, `{"path": "log.txt", "content": "line 1"}`, `[1, "é", {"a": null}]`, ` true `, `"\"\t\\"`} {
		if _, ok := decodeFast(text); !ok {
			t.Errorf("decodeFast(%q) left a common shape to encoding/json", text)
		}
	}
	if _, ok := decodeFast(`{"path": "log.txt"}`); !ok {
		t.Error("decodeFast refused a plain object")
	}
}

func FuzzDecodeFast(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add(s)
	}
	f.Fuzz(checkFast)
}

func checkFast(t *testing.T, text string) {
	got, ok := decodeFast(text)
	want, err := decodeSlow(text)
	if !ok {
		return // encoding/json decides
	}
	if err != nil {
		t.Fatalf("decodeFast(%q) accepted text encoding/json refuses (%v): %#v", text, err, got)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeFast(%q) = %#v, encoding/json gives %#v", text, got, want)
	}
}
