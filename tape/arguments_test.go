package tape

import (
	"strings"
	"testing"
)

// Tests here close mutants that scripts/mutation found alive in replay.

// decodeArguments decodes a tape whose one tool call has the YAML arguments
// src (indented under "arguments:") and returns the JSON text they became.
func decodeArguments(t *testing.T, src string) string {
	t.Helper()
	recorded := "format: tapeloop/v1\ntape:\n  - response:\n      tool_calls:\n        - name: f\n          arguments: " + src + "\n"
	tp, err := Decode(strings.NewReader(recorded), "x.yaml")
	if err != nil {
		t.Fatalf("Decode(arguments: %s): %v", src, err)
	}
	return tp.Entries[0].Response.Message.ToolCalls[0].Arguments
}

func TestArgumentsMappingBecomesJSON(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		// A number or boolean key is a YAML scalar that is not a string: its text is the key.
		{"{1: a, true: b}", `{"1":"a","true":"b"}`},
		{"{x: [1, two, null, 0x10, 1.5, yes]}", `{"x":[1,"two",null,16,1.5,"yes"]}`},
	} {
		if got := decodeArguments(t, tc.src); got != tc.want {
			t.Errorf("arguments: %s became %s, want %s", tc.src, got, tc.want)
		}
	}
}

func TestArgumentsScalarsBecomeJSON(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		// !!binary is base64 in YAML; the argument is the decoded text.
		{"{b: !!binary aGVsbG8=, d: 2001-12-14}", `{"b":"hello","d":"2001-12-14"}`},
		// Floats YAML writes in forms JSON has no room for are rewritten.
		{"[.5, +1e3, 1_000.25]", `[0.5,1000,1000.25]`},
	} {
		if got := decodeArguments(t, tc.src); got != tc.want {
			t.Errorf("arguments: %s became %s, want %s", tc.src, got, tc.want)
		}
	}
}
