package tools

import (
	"encoding/json"
	"reflect"
	"testing"
)

type fastInner struct {
	Deep string `json:"deep"`
}

type fastArgs struct {
	Path    string            `json:"path"`
	Count   int               `json:"count,omitempty"`
	Tags    []string          `json:"tags,omitempty"`
	Inner   *fastInner        `json:"inner,omitempty"`
	Extra   map[string]any    `json:"extra,omitempty"`
	Plain   bool              // named by its field name
	Skipped string            `json:"-"`
	Raw     json.RawMessage   `json:"raw,omitempty"`
	Nums    map[string]string `json:"nums,omitempty"`
	fastInner
}

var keySeeds = []string{
	`{"path":"a.txt"}`, `{"path":"a.txt","count":3}`, `{"Path":"a.txt"}`, `{"PATH":"x"}`, `{"Plain":true}`, `{"plain":true}`,
	`{"path":"a","twin":"t"}`, `{"deep":"promoted"}`, `{"fastInner":{"deep":"x"}}`, `{"Skipped":"x"}`, `{"-":"x"}`,
	`{"count":"3"}`, `{"count":1e400}`, `{"count":1.5}`, `{"tags":["a","b"],"inner":{"deep":"d"},"extra":{"k":[1,{"a":"}"}]}}`,
	`{"path":"a\"b"}`, `{"pa\u0074h":"x"}`, `{"path":"a"} `, `{"path":"a"}x`, `{"path":"a"}}`, `{"path":"a",}`, `{}`, ` { } `,
	`[]`, `"x"`, `{"path":}`, `{"path" "a"}`, `{"raw":{"x":[1,2]},"nums":{"a":"1"}}`, `{"path":"a","path":"b"}`,
	`{"inner":{"deep":"d","other":1}}`, `{"path":"é"}`, `{"path":null}`, `{"count":null}`, `{"tags":[1]}`,
}

// TestDecodeKnownAsDecodeArguments checks that whatever decodeKnown decodes,
// DecodeArguments decodes to the same value without error.
func TestDecodeKnownAsDecodeArguments(t *testing.T) {
	fields := directFields(reflect.TypeFor[fastArgs]())
	for _, name := range []string{"path", "count", "Plain", "raw"} {
		if !fields[name] {
			t.Errorf("directFields misses %q: %v", name, fields)
		}
	}
	for _, name := range []string{"Skipped", "-", "deep", "fastInner", "inner"} {
		if fields[name] {
			t.Errorf("directFields has %q, which encoding/json may not decode into a field", name)
		}
	}
	fast := 0
	for _, text := range keySeeds {
		if checkKnown(t, text) {
			fast++
		}
	}
	if fast < 8 {
		t.Errorf("decodeKnown decoded only %d of the seeds", fast)
	}
	// A name held by two fields: encoding/json decodes into neither (built
	// with reflect, as vet refuses a repeated tag in source).
	twins := reflect.StructOf([]reflect.StructField{
		{Name: "A", Type: reflect.TypeFor[string](), Tag: `json:"twin"`},
		{Name: "B", Type: reflect.TypeFor[string](), Tag: `json:"twin"`},
		{Name: "C", Type: reflect.TypeFor[string](), Tag: `json:"c"`},
	})
	if f := directFields(twins); f["twin"] || !f["c"] {
		t.Errorf("directFields of a struct with a name held twice: %v", f)
	}
	if directFields(reflect.TypeFor[map[string]any]()) != nil {
		t.Error("directFields took a map type")
	}
	type oddTag struct {
		A string `json:"a-b"`
	}
	if directFields(reflect.TypeFor[oddTag]()) != nil {
		t.Error("directFields took a tag it does not read plainly")
	}
}

func FuzzDecodeKnown(f *testing.F) {
	for _, s := range keySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { checkKnown(t, text) })
}

func checkKnown(t *testing.T, text string) bool {
	var got fastArgs
	if !decodeKnown(json.RawMessage(text), directFields(reflect.TypeFor[fastArgs]()), &got) {
		return false
	}
	var want fastArgs
	if err := DecodeArguments(json.RawMessage(text), &want); err != nil {
		t.Fatalf("decodeKnown decoded %q, which DecodeArguments refuses: %v", text, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeKnown(%q) = %+v, DecodeArguments gives %+v", text, got, want)
	}
	return true
}
