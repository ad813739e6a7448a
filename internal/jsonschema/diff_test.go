package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/internal/jsonschema/jsonschematest"
)

// The differential tests hold this validator to the one tapeloop used before,
// github.com/santhosh-tekuri/jsonschema/v6, configured as tapeloop configured
// it: the same verdict on every schema and instance, and the same leaf
// messages, sorted and de-duplicated as tools.Schema.Validate reports them.

var printer = jsonschematest.Printer()

// reference validates with santhosh-tekuri/jsonschema: a compile error, or
// the leaf failures.
func reference(doc, v any) ([]Error, error) {
	fs, err := jsonschematest.Validate(doc, v)
	if err != nil {
		return nil, err
	}
	var out []Error
	for _, f := range fs {
		out = append(out, Error{f.Path, f.Message})
	}
	return out, nil
}

// normalize sorts and de-duplicates failures, as tools.Schema.Validate does.
func normalize(errs []Error) []Error {
	if len(errs) == 0 {
		return nil
	}
	sort.Slice(errs, func(i, j int) bool {
		if errs[i].Path != errs[j].Path {
			return errs[i].Path < errs[j].Path
		}
		return errs[i].Message < errs[j].Message
	})
	return slices.Compact(errs)
}

func ours(doc, v any) ([]Error, error) {
	s, err := Compile(doc)
	if err != nil {
		return nil, err
	}
	errs := s.Validate(v)
	if (errs == nil) != s.Valid(v) {
		return nil, fmt.Errorf("Validate says %d failures, Valid says %v", len(errs), s.Valid(v))
	}
	return normalize(errs), nil
}

func decode(t testing.TB, text string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %s: %v", text, err)
	}
	return v
}

// compare fails t when the validators disagree on doc and v. messages says
// whether the messages must agree too (else only the verdicts).
func compare(t testing.TB, doc, v any, messages bool) {
	t.Helper()
	want, wantErr := reference(doc, v)
	got, gotErr := ours(doc, v)
	schema, _ := json.Marshal(doc)
	inst, _ := json.Marshal(v)
	if (wantErr != nil) != (gotErr != nil) {
		t.Errorf("schema %s: compile error %v, santhosh says %v", schema, gotErr, wantErr)
		return
	}
	if wantErr != nil {
		return
	}
	if (len(want) == 0) != (len(got) == 0) {
		t.Errorf("schema %s, instance %s: valid=%v, santhosh says valid=%v\n got %q\nwant %q", schema, inst, len(got) == 0, len(want) == 0, got, want)
		return
	}
	if messages && !slices.Equal(got, want) {
		t.Errorf("schema %s, instance %s:\n got %q\nwant %q", schema, inst, got, want)
	}
}

// suiteDir finds the JSON-Schema-Test-Suite copy that github.com/google/jsonschema-go
// ships in the module cache.
func suiteDir(t testing.TB) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/google/jsonschema-go").Output()
	dir := filepath.Join(strings.TrimSpace(string(out)), "jsonschema", "testdata")
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Skipf("the JSON Schema test suite of github.com/google/jsonschema-go is not in the module cache (go list: %v); run go mod download", err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the JSON Schema test suite is not at %s: %v", dir, err)
	}
	return dir
}

type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// unsupported lists the suite's groups this validator refuses to compile, by
// "dir/file: group description", with the reason. Each must be refused for
// that reason: the test fails if it compiles.
var unsupported = map[string]string{
	"draft2020-12/defs.json: validate definition against metaschema":                               metaSchemaRef,
	"draft2020-12/ref.json: remote ref, containing refs itself":                                    metaSchemaRef,
	"draft7/definitions.json: validate definition against metaschema":                              metaSchemaRef,
	"draft7/ref.json: remote ref, containing refs itself":                                          metaSchemaRef,
	"draft2020-12/dynamicRef.json: strict-tree schema, guards against misspelled properties":       remoteRef,
	"draft2020-12/dynamicRef.json: tests for implementation dynamic anchor and reference link":     remoteRef,
	"draft2020-12/dynamicRef.json: $ref and $dynamicAnchor are independent of order - $defs first": remoteRef,
	"draft2020-12/dynamicRef.json: $ref and $dynamicAnchor are independent of order - $ref first":  remoteRef,
	"draft2020-12/dynamicRef.json: $ref to $dynamicRef finds detached $dynamicAnchor":              remoteRef,
	"draft2020-12/refRemote.json: remote ref":                                                      remoteRef,
	"draft2020-12/refRemote.json: fragment within remote ref":                                      remoteRef,
	"draft2020-12/refRemote.json: anchor within remote ref":                                        remoteRef,
	"draft2020-12/refRemote.json: ref within remote ref":                                           remoteRef,
	"draft2020-12/refRemote.json: base URI change":                                                 remoteRef,
	"draft2020-12/refRemote.json: base URI change - change folder":                                 remoteRef,
	"draft2020-12/refRemote.json: base URI change - change folder in subschema":                    remoteRef,
	"draft2020-12/refRemote.json: root ref in remote ref":                                          remoteRef,
	"draft2020-12/refRemote.json: remote ref with ref to defs":                                     remoteRef,
	"draft2020-12/refRemote.json: Location-independent identifier in remote ref":                   remoteRef,
	"draft2020-12/refRemote.json: retrieved nested refs resolve relative to their URI not $id":     remoteRef,
	"draft2020-12/refRemote.json: remote HTTP ref with different $id":                              remoteRef,
	"draft2020-12/refRemote.json: remote HTTP ref with different URN $id":                          remoteRef,
	"draft2020-12/refRemote.json: remote HTTP ref with nested absolute ref":                        remoteRef,
	"draft2020-12/refRemote.json: $ref to $ref finds detached $anchor":                             remoteRef,
	"draft7/refRemote.json: remote ref":                                                            remoteRef,
	"draft7/refRemote.json: fragment within remote ref":                                            remoteRef,
	"draft7/refRemote.json: ref within remote ref":                                                 remoteRef,
	"draft7/refRemote.json: base URI change":                                                       remoteRef,
	"draft7/refRemote.json: base URI change - change folder":                                       remoteRef,
	"draft7/refRemote.json: base URI change - change folder in subschema":                          remoteRef,
	"draft7/refRemote.json: root ref in remote ref":                                                remoteRef,
	"draft7/refRemote.json: remote ref with ref to definitions":                                    remoteRef,
	"draft7/refRemote.json: Location-independent identifier in remote ref":                         remoteRef,
	"draft7/refRemote.json: retrieved nested refs resolve relative to their URI not $id":           remoteRef,
	"draft7/refRemote.json: $ref to $ref finds location-independent $id":                           remoteRef,
}

const (
	remoteRef     = "refers to another document (http://localhost:1234/...): nothing is fetched, both validators refuse the schema"
	metaSchemaRef = "refers to a draft's meta-schema by URL: santhosh has the meta-schemas built in, tapeloop refuses a reference outside the schema"
)

func TestSuiteAgainstSanthosh(t *testing.T) {
	root := suiteDir(t)
	for _, draft := range []string{"draft2020-12", "draft7"} {
		files, err := filepath.Glob(filepath.Join(root, draft, "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no test files in %s: %v", filepath.Join(root, draft), err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var groups []suiteGroup
			if err := json.Unmarshal(data, &groups); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			for _, g := range groups {
				name := draft + "/" + filepath.Base(file) + ": " + g.Description
				t.Run(name, func(t *testing.T) {
					doc := decode(t, string(g.Schema))
					if obj, ok := doc.(map[string]any); ok && draft == "draft7" {
						if _, ok := obj["$schema"]; !ok {
							obj["$schema"] = "http://json-schema.org/draft-07/schema#"
						}
					}
					if _, err := Compile(doc); err != nil && strings.Contains(err.Error(), "outside the schema") {
						why, ok := unsupported[name]
						if !ok {
							t.Fatalf("refused as referring outside the schema, but not listed as unsupported: %v", err)
						}
						if _, err := reference(doc, nil); err == nil && why != metaSchemaRef {
							t.Fatalf("santhosh compiles it: list it as metaSchemaRef if that is why")
						}
						t.Skip(why)
					} else if _, listed := unsupported[name]; listed {
						t.Fatalf("listed as unsupported but compiles: %v", err)
					}
					for _, tc := range g.Tests {
						compare(t, doc, decode(t, string(tc.Data)), true)
					}
				})
			}
		}
	}
}

// TestMessages pins the messages tools report, on the keywords tool schemas
// use, against santhosh.
func TestMessages(t *testing.T) {
	cases := []struct{ schema, instance string }{
		{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":1.5}`},
		{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":1.0}`},
		{`{"type":"object","properties":{"n":{"type":["string","null"]}}}`, `{"n":1}`},
		{`{"type":"object","required":["a","b"],"properties":{"a":{"type":"string"}}}`, `{"a":true}`},
		{`{"type":"object","additionalProperties":false,"properties":{"a":{}}}`, `{"b":1,"c":2,"a":3}`},
		{`{"properties":{"s":{"enum":["x","y",null,1.5,true]}}}`, `{"s":"z"}`},
		{`{"properties":{"s":{"enum":["x"]}}}`, `{"s":"z"}`},
		{`{"properties":{"s":{"enum":[["x"]]}}}`, `{"s":"z"}`},
		{`{"properties":{"s":{"const":"it's"}}}`, `{"s":"z"}`},
		{`{"properties":{"s":{"const":{"a":1}}}}`, `{"s":"z"}`},
		{`{"properties":{"s":{"minLength":3,"maxLength":1,"pattern":"^a+$"}}}`, `{"s":"bé"}`},
		{`{"properties":{"s":{"maxLength":1000}}}`, `{"s":"` + strings.Repeat("x", 1234) + `"}`},
		{`{"properties":{"n":{"minimum":1.5,"maximum":0.25,"multipleOf":0.1}}}`, `{"n":1}`},
		{`{"properties":{"n":{"exclusiveMinimum":1000000,"exclusiveMaximum":-0.00001}}}`, `{"n":123456.75}`},
		{`{"properties":{"n":{"minimum":12345678901}}}`, `{"n":-1e-9}`},
		{`{"properties":{"n":{"maximum":1e400}}}`, `{"n":1e401}`},
		{`{"properties":{"n":{"multipleOf":7}}}`, `{"n":123456789012345678901234567890}`},
		{`{"properties":{"l":{"minItems":2,"maxItems":0,"uniqueItems":true,"items":{"type":"string"}}}}`, `{"l":[1,1]}`},
		{`{"properties":{"l":{"uniqueItems":true}}}`, `{"l":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,{"a":[1]},3.0,{"a":[1.0]}]}`},
		{`{"properties":{"l":{"contains":{"type":"string"}}}}`, `{"l":[1,2]}`},
		{`{"properties":{"l":{"contains":{"type":"string"}}}}`, `{"l":[]}`},
		{`{"properties":{"l":{"contains":{"type":"string"},"minContains":2,"maxContains":0}}}`, `{"l":["a",1]}`},
		{`{"properties":{"l":{"contains":{"type":"string"},"minContains":3}}}`, `{"l":["a","b"]}`},
		{`{"properties":{"l":{"contains":{"type":"string"},"maxContains":1}}}`, `{"l":["a","b",1,"c"]}`},
		{`{"properties":{"l":{"prefixItems":[{"type":"string"}],"items":false}}}`, `{"l":[1,2,3]}`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"l":{"items":[{"type":"string"}],"additionalItems":false}}}`, `{"l":[1,2,3]}`},
		{`{"minProperties":3,"maxProperties":0}`, `{"a":1}`},
		{`{"dependentRequired":{"a":["c","b"]},"dependencies":{"a":["d"],"b":{"required":["x"]}}}`, `{"a":1,"b":2}`},
		{`{"propertyNames":{"maxLength":2,"pattern":"^[a-z]+$"}}`, `{"abc":1,"A":2,"ok":3}`},
		{`{"properties":{"o":{"propertyNames":false}}}`, `{"o":{"x":1}}`},
		{`{"anyOf":[{"type":"string"},{"properties":{"a":{"type":"integer"}}}]}`, `{"a":"x"}`},
		{`{"oneOf":[{"type":"object"},{"required":["a"]}]}`, `{"a":"x"}`},
		{`{"oneOf":[{"type":"string"},{"type":"number"}]}`, `{"a":"x"}`},
		{`{"allOf":[{"required":["a"]},{"required":["b"]}]}`, `{}`},
		{`{"not":{"required":["a"]}}`, `{"a":1}`},
		{`{"if":{"required":["a"]},"then":{"required":["b"]},"else":{"required":["c"]}}`, `{"a":1}`},
		{`{"if":{"required":["a"]},"then":{"required":["b"]},"else":{"required":["c"]}}`, `{}`},
		{`{"$defs":{"pos":{"type":"integer","minimum":1}},"properties":{"n":{"$ref":"#/$defs/pos"},"m":{"$ref":"#/properties/n"}}}`, `{"n":0,"m":"x"}`},
		{`{"definitions":{"s":{"type":"string"}},"properties":{"n":{"$ref":"#/definitions/s","maxLength":0}}}`, `{"n":5}`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"properties":{"n":{"$ref":"#/definitions/s","maxLength":0}}}`, `{"n":"abc"}`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"e":{"type":"string","format":"email"},"d":{"format":"date-time"},"u":{"format":"uri"},"i":{"format":"uuid"}}}`, `{"e":"nope","d":"2020-13-01T00:00:00Z","u":"rel/x","i":"123"}`},
		{`{"properties":{"e":{"type":"string","format":"email"}}}`, `{"e":"nope"}`},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"n":{"minimum":5,"exclusiveMinimum":true}}}`, `{"n":5}`},
		{`{"properties":{"x":{"unevaluatedProperties":false,"properties":{"a":{}},"anyOf":[{"properties":{"b":{}}}]}}}`, `{"x":{"a":1,"b":2,"c":3}}`},
		{`{"properties":{"a/b~c":{"type":"string"}}}`, `{"a/b~c":1}`},
		{`false`, `1`},
		{`{"properties":{"q":{"type":"string","pattern":"\\d"}}}`, `{"q":"it's \"x\"\n"}`},
	}
	for _, c := range cases {
		compare(t, decode(t, c.schema), decode(t, c.instance), true)
	}
}

// TestInvalidSchemas checks that both validators refuse what the
// meta-schemas refuse, and that ours says where.
func TestInvalidSchemas(t *testing.T) {
	cases := []struct{ schema, want string }{
		{`{"type":"objekt"}`, `"/type": unknown type "objekt"`},
		{`{"type":["string","string"]}`, `listed twice`},
		{`{"type":[]}`, `want at least one type`},
		{`{"type":5}`, `want a type name`},
		{`{"minLength":-1}`, `"/minLength": want a non-negative integer, got -1`},
		{`{"maxItems":1.5}`, `want a non-negative integer`},
		{`{"pattern":"("}`, `"/pattern": invalid regular expression`},
		{`{"patternProperties":{"(":{}}}`, `invalid regular expression`},
		{`{"properties":{"a":5}}`, `"/properties/a": want a schema`},
		{`{"properties":[]}`, `want an object`},
		{`{"required":"a"}`, `want an array of strings`},
		{`{"required":["a","a"]}`, `listed twice`},
		{`{"enum":5}`, `want an array`},
		{`{"multipleOf":0}`, `greater than 0`},
		{`{"allOf":[]}`, `at least one schema`},
		{`{"items":[{}]}`, `prefixItems`},
		{`{"$ref":"http://example.com/x.json"}`, `outside the schema`},
		{`{"$ref":"#/$defs/missing"}`, `no such location`},
		{`{"$ref":"#nope"}`, `no anchor`},
		{`{"$schema":"http://example.com/my-schema"}`, `unsupported $schema`},
		{`{"additionalProperties":"no"}`, `want a schema`},
		{`{"$anchor":"1x"}`, `invalid anchor`},
		{`{"$id":"http://x/y#frag"}`, `fragment`},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","exclusiveMinimum":true}`, `needs minimum`},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","items":true}`, `want a schema`},
		{`{"uniqueItems":"yes"}`, `want a boolean`},
		{`{"dependentRequired":{"a":"b"}}`, `want an array of strings`},
		{`[]`, `want a JSON object or boolean`},
		{`5`, `want a JSON object or boolean`},
	}
	for _, c := range cases {
		doc := decode(t, c.schema)
		_, err := Compile(doc)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Compile(%s) = %v, want an error containing %q", c.schema, err, c.want)
		}
		if _, err := reference(doc, nil); err == nil {
			t.Errorf("santhosh compiles %s: the case is not invalid", c.schema)
		}
	}
}

// TestDocumentedDifferences pins where this validator differs from santhosh
// on purpose (see format.go): the formats uri-template, period and semver are
// annotations here, assertions there under the drafts before 2019-09.
func TestDocumentedDifferences(t *testing.T) {
	for _, c := range []struct{ format, value string }{
		{"uri-template", `"{unclosed"`},
		{"period", `"nope"`},
		{"semver", `"1.2"`},
	} {
		doc := decode(t, `{"$schema":"http://json-schema.org/draft-07/schema#","format":"`+c.format+`"}`)
		v := decode(t, c.value)
		want, err := reference(doc, v)
		if err != nil || len(want) == 0 {
			t.Errorf("santhosh accepts %s as %s (%v): the difference is gone, update format.go's doc", c.value, c.format, err)
		}
		got, err := ours(doc, v)
		if err != nil || len(got) != 0 {
			t.Errorf("%s as %s: got %v, %v; want valid (format %s is an annotation)", c.value, c.format, got, err, c.format)
		}
	}
}

// TestReferenceCycle checks that a schema applying itself to the same value
// fails, as with santhosh (whose message differs: it names keyword paths),
// instead of recursing without end.
func TestReferenceCycle(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		{`{"$ref":"#"}`, `reference cycle: the root applies itself to the same value`},
		{`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`, `reference cycle: "/$defs/a" applies itself to the same value`},
	} {
		doc, v := decode(t, c.schema), decode(t, `{"x":1}`)
		compare(t, doc, v, false)
		got, err := ours(doc, v)
		if err != nil || len(got) != 1 || got[0].Message != c.want {
			t.Errorf("%s: got %q, %v; want one failure %q", c.schema, got, err, c.want)
		}
	}
}

func FuzzAgainstSanthosh(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"integer","minimum":1}},"required":["a"]}`, `{"a":0}`)
	f.Add(`{"anyOf":[{"type":"string","maxLength":2},{"type":"array","items":{"enum":[1,2]}}]}`, `[1,3]`)
	f.Add(`{"oneOf":[{"multipleOf":2},{"multipleOf":3}],"not":{"const":12}}`, `6`)
	f.Add(`{"$defs":{"n":{"type":["null","object"],"properties":{"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`, `{"next":{"next":5}}`)
	f.Add(`{"propertyNames":{"pattern":"^a"},"additionalProperties":{"type":"boolean"},"unevaluatedProperties":false}`, `{"ab":true,"b":1}`)
	f.Add(`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}],"additionalItems":{"format":"ipv4"}}`, `["a","1.2.3.400"]`)
	if dir := suiteSeeds(); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "draft2020-12", "*.json"))
		for _, file := range files {
			data, _ := os.ReadFile(file)
			var groups []suiteGroup
			_ = json.Unmarshal(data, &groups)
			for _, g := range groups {
				for _, tc := range g.Tests {
					f.Add(string(g.Schema), string(tc.Data))
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, schema, instance string) {
		var doc, v any
		for _, p := range []struct {
			text string
			v    *any
		}{{schema, &doc}, {instance, &v}} {
			dec := json.NewDecoder(strings.NewReader(p.text))
			dec.UseNumber()
			if err := dec.Decode(p.v); err != nil {
				return
			}
		}
		if bytes.Contains([]byte(schema), []byte("$schema")) || bytes.Contains([]byte(schema), []byte("$id")) || bytes.Contains([]byte(schema), []byte("format")) {
			return // remote meta-schemas, resource ids and draft-7 formats are covered by the tables
		}
		compare(t, doc, v, true)
	})
}

// suiteSeeds is suiteDir for the fuzz seeds: "" when absent.
func suiteSeeds() string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/google/jsonschema-go").Output()
	if err != nil {
		return ""
	}
	return filepath.Join(strings.TrimSpace(string(out)), "jsonschema", "testdata")
}

func TestFormatFloatMatchesPrinter(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 0.5, 1.5, 100, 1000, 12345.678, 99999.5, 100000, 999999, 1e6, 1234567, 1.5e7,
		0.1, 0.0001, 0.00012345, 0.00001, 1e-7, -3.25e-12, 1e21, 1.7976931348623157e308, 5e-324, 123456789012, -0.25, 1.0 / 3} {
		want := printer.Sprintf("%v", f)
		if got := fmtFloat(f); got != want {
			t.Errorf("fmtFloat(%v) = %q, want %q", f, got, want)
		}
	}
	for _, n := range []int{0, 7, 999, 1000, 12345, -1234567, 1 << 40} {
		want := printer.Sprintf("%d", n)
		if got := fmtInt(n); got != want {
			t.Errorf("fmtInt(%d) = %q, want %q", n, got, want)
		}
	}
}
