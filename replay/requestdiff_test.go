package replay

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

// TestCompareOfferedDiffs: a divergence in what was offered shows the
// recorded side as removed lines and the actual side as added ones, says
// when there was no system prompt or a parameter is not sent, keeps a
// schema's <, > and & as written, shows a prompt's final line break as the
// end of its last line, and tool parameters that are not JSON as sent.
func TestCompareOfferedDiffs(t *testing.T) {
	for _, tc := range []struct {
		name      string
		want, got *tape.Offered
		has       []string
	}{
		{"param", &tape.Offered{Params: map[string]json.RawMessage{"temperature": json.RawMessage(`0.2`)}}, &tape.Offered{Params: map[string]json.RawMessage{"temperature": json.RawMessage(`0.7`)}},
			[]string{"offered.params.temperature (recorded at t.yaml:3): the request parameter temperature changed:\n--- recorded\n+++ actual\n", "-0.2\n+0.7\n"}},
		{"seed past float precision", &tape.Offered{Params: map[string]json.RawMessage{"seed": json.RawMessage(`9007199254740993`)}}, &tape.Offered{Params: map[string]json.RawMessage{"seed": json.RawMessage(`9007199254740992`)}},
			[]string{"the request parameter seed changed:\n", "-9007199254740993\n+9007199254740992\n"}},
		{"system added", &tape.Offered{System: []string{}}, &tape.Offered{System: []string{"Be brief."}},
			[]string{"offered.system (recorded at t.yaml:3): the system prompt changed:\n", "-(no system prompt)\n+Be brief.\n"}},
		{"schema", &tape.Offered{ResponseSchema: json.RawMessage(`{"description":"a <b> & c"}`)}, &tape.Offered{ResponseSchema: json.RawMessage(`{"description":"a <b> & d"}`)},
			[]string{`-  "description": "a <b> & c"`, `+  "description": "a <b> & d"`}},
		{"param no longer sent", &tape.Offered{Params: map[string]json.RawMessage{"temperature": json.RawMessage(`0.2`)}}, &tape.Offered{Params: map[string]json.RawMessage{}},
			[]string{"the request parameter temperature changed:\n--- recorded\n+++ actual\n@@ -1 +1 @@\n-0.2\n+(not sent)\n"}},
		{"system ending in a line break", &tape.Offered{System: []string{"Be terse.\n"}}, &tape.Offered{System: []string{"Be brief.\n"}},
			[]string{"the system prompt changed:\n--- recorded\n+++ actual\n@@ -1 +1 @@\n-Be terse.\n+Be brief.\n"}},
		{"tool parameters not JSON", &tape.Offered{Tools: []llm.ToolDefinition{{Name: "f", Parameters: json.RawMessage(`{"type":"object"}`)}}},
			&tape.Offered{Tools: []llm.ToolDefinition{{Name: "f", Parameters: json.RawMessage(`{"type":`)}}},
			[]string{"  tool f: parameters (schema) changed, as JSON:\n    --- recorded\n    +++ actual\n    @@ -1,3 +1 @@\n    -{\n    -  \"type\": \"object\"\n    -}\n    +{\"type\":\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.Line = 3
			_, text := compareOffered(tc.want, tc.got, "t.yaml")
			for _, s := range tc.has {
				if !strings.Contains(text, s) {
					t.Errorf("diff lacks %q:\n%s", s, text)
				}
			}
		})
	}
}
