package tools

import (
	"encoding/json"
	"testing"
)

// TestValidationMessagesAreOrdered checks that every validation message built
// from a set (the unknown properties of an object, missing required ones) lists
// its members sorted, so that a golden holding it is the same on every run.
// The validator collects unknown properties from a map, so each case is
// validated many times: one differing message is a failure.
func TestValidationMessagesAreOrdered(t *testing.T) {
	cases := []struct {
		name, schema, args, want string
	}{
		{"two unknown", `{"type":"object","additionalProperties":false}`,
			`{"y":1,"x":2}`, "(arguments): additional properties 'x', 'y' not allowed"},
		{"five unknown", `{"type":"object","properties":{"a":{}},"additionalProperties":false}`,
			`{"e":1,"a":0,"d":2,"c":3,"b":4,"f":5}`, "(arguments): additional properties 'b', 'c', 'd', 'e', 'f' not allowed"},
		{"nested unknown", `{"type":"object","properties":{"o":{"type":"object","additionalProperties":false}}}`,
			`{"o":{"zz":1,"aa":2,"mm":3}}`, "/o: additional properties 'aa', 'mm', 'zz' not allowed"},
		{"missing required", `{"type":"object","required":["q","p","r"]}`,
			`{}`, "(arguments): missing properties 'p', 'q', 'r'"},
		{"dependent required", `{"type":"object","dependentRequired":{"a":["z","b"]}}`,
			`{"a":1}`, "(arguments): properties 'b', 'z' required, if 'a' exists"},
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
			for i := range 200 {
				got := describeFieldErrors(s.Validate(v))
				if got != c.want {
					t.Fatalf("validation %d:\n got %s\nwant %s", i+1, got, c.want)
				}
			}
		})
	}
}
