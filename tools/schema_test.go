package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestValidationListsEveryFailure checks that a failing value reports every
// failure at once, each at its JSON pointer, in the same order on every run.
// The validator underneath stops at its first failure, chosen by map order,
// so each case is validated many times: one differing message is a failure.
func TestValidationListsEveryFailure(t *testing.T) {
	cases := []struct {
		name, schema, args, want string
	}{
		{"two unknown", `{"type":"object","additionalProperties":false}`,
			`{"y":1,"x":2}`, `/x: unexpected additional properties ["x"]; /y: unexpected additional properties ["y"]`},
		{"unknown beside declared", `{"type":"object","properties":{"a":{}},"additionalProperties":false}`,
			`{"e":1,"a":0,"c":3}`, `/c: unexpected additional properties ["c"]; /e: unexpected additional properties ["e"]`},
		{"nested unknown", `{"type":"object","properties":{"o":{"type":"object","additionalProperties":false}}}`,
			`{"o":{"zz":1,"aa":2}}`, `/o/aa: unexpected additional properties ["aa"]; /o/zz: unexpected additional properties ["zz"]`},
		{"missing required in the schema's order", `{"type":"object","required":["q","p","r"]}`,
			`{}`, `(arguments): required: missing properties: ["q" "p" "r"]`},
		{"missing and unknown and mistyped", `{"type":"object","properties":{"n":{"type":"integer"},"s":{"type":"string"}},"required":["s"],"additionalProperties":false}`,
			`{"n":"one","x":true}`, `(arguments): required: missing properties: ["s"]; /n: type: one has type "string", want "integer"; /x: unexpected additional properties ["x"]`},
		{"two keywords on one value", `{"type":"object","properties":{"n":{"type":"integer","minimum":3,"multipleOf":2}}}`,
			`{"n":1}`, `/n: minimum: 1/1 is less than 3.000000; /n: multipleOf: 1/1 is not a multiple of 2.000000`},
		{"each item of an array", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"integer"},"maxItems":2}}}`,
			`{"l":[1,"two",3.5]}`, `/l: maxItems: array length 3 is greater than 2; /l/1: type: two has type "string", want "integer"; /l/2: type: 3.5 has type "number", want "integer"`},
		{"pattern properties one by one", `{"type":"object","patternProperties":{"^n":{"type":"integer"}}}`,
			`{"nb":"x","na":"y","s":"z"}`, `/na: type: y has type "string", want "integer"; /nb: type: x has type "string", want "integer"`},
		{"a reference into $defs", `{"type":"object","$defs":{"pos":{"type":"integer","minimum":1}},"properties":{"a":{"$ref":"#/$defs/pos"},"b":{"$ref":"#/$defs/pos"}}}`,
			`{"a":0,"b":"x"}`, `/a: minimum: 0/1 is less than 1.000000; /b: type: x has type "string", want "integer"`},
		{"draft 7 $ref hides its siblings", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"type":"object","properties":{"a":{"$ref":"#/definitions/s","minLength":5}}}`,
			`{"a":1}`, `/a: type: 1 has type "integer", want "string"`},
		{"a property's value is not an object", `{"type":"object","properties":{"o":{"type":"object","properties":{"p":{"type":"string"}}}}}`,
			`{"o":[1]}`, `/o: type: [1] has type "array", want "object"`},
		// properties and patternProperties both fail on a, with the same
		// message: it is listed once.
		{"same message twice", `{"type":"object","properties":{"a":{"type":"integer"}},"patternProperties":{"^a":{"type":"integer"}}}`,
			`{"a":"x"}`, `/a: type: x has type "string", want "integer"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := CompileSchema(json.RawMessage(c.schema))
			if err != nil {
				t.Fatal(err)
			}
			v, _, err := ParseJSON(c.args, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 100 {
				got := describeFieldErrors(s.Validate(v))
				if got != c.want {
					t.Fatalf("validation %d:\n got %s\nwant %s", i+1, got, c.want)
				}
			}
		})
	}
}

// TestValidValuesHaveNoFailures checks values that each schema accepts.
func TestValidValuesHaveNoFailures(t *testing.T) {
	cases := []struct{ schema, args string }{
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":3}}}`, `{"n":3}`},
		{`{"type":"object","properties":{"n":{"type":"number"}}}`, `{"n":12345678901234567890.5}`},
		{`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"}}}}`, `{"l":["a","b"]}`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"l":{"items":[{"type":"string"}],"additionalItems":false}}}`, `{"l":["a"]}`},
	}
	for _, c := range cases {
		s, err := CompileSchema(json.RawMessage(c.schema))
		if err != nil {
			t.Fatalf("%s: %v", c.schema, err)
		}
		v, _, err := ParseJSON(c.args, nil)
		if err != nil {
			t.Fatal(err)
		}
		if errs := s.Validate(v); errs != nil {
			t.Errorf("%s with %s: %v", c.schema, c.args, errs)
		}
	}
}

// TestCompileRefusesBadSchemas checks the schemas CompileSchema refuses and
// that its error says why.
func TestCompileRefusesBadSchemas(t *testing.T) {
	cases := []struct{ schema, want string }{
		{`[1]`, "must be a JSON object"},
		{`{"type":"strnig"}`, "not a valid schema"},
		{`{"minimum":"x"}`, "not a valid schema"},
		{`{"$schema":"http://json-schema.org/draft-04/schema#"}`, "is not supported"},
		{`{"$ref":"https://example.com/other.json"}`, "cannot resolve remote schemas"},
		{`{"$ref":"#/$defs/missing"}`, "missing"},
		{`{"pattern":"("}`, "pattern"},
	}
	for _, c := range cases {
		_, err := CompileSchema(json.RawMessage(c.schema))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CompileSchema(%s) = %v, want an error containing %q", c.schema, err, c.want)
		}
	}
}
