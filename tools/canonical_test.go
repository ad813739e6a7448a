package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/tapeloop/tapeloop/internal/jsoncoerce"
	"github.com/tapeloop/tapeloop/llm"
)

// canonicalSeeds are argument texts whose canonical form must be exactly
// json.Marshal's: key order, escaping (HTML, control, non-ASCII, invalid
// UTF-8, U+2028), numbers kept verbatim, nesting, many keys.
var canonicalSeeds = []string{
	`{}`, `[]`, `null`, `true`, `"x"`, `-0.5e+10`,
	`{"path": "notes.txt", "count": 3, "force": true}`,
	`{"b": 1, "a": {"d": [1, 2.50, {"z": null, "y": false}], "c": ""}}`,
	`{"html": "<a href=\"x\">&</a>", "ctl": "a\nb\tc\u0001\b\f\r", "uni": "é ✓ \u2028 \u2029 😀"}`,
	"{\"bad\": \"\xff\xfe\"}",
	`{"k<": 1, "k\"": 2, "é": 3, "": 4}`,
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18}`,
	`{"big": 123456789012345678901234567890, "neg": -0, "exp": 1E400}`,
}

func checkCanonical(t *testing.T, text string) {
	v, err := jsoncoerce.Decode(text)
	if err != nil {
		return
	}
	want, werr := json.Marshal(v)
	got, gerr := canonicalJSON(v)
	if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
		t.Fatalf("canonicalJSON(%q) = %q, %v; json.Marshal gives %q, %v", text, got, gerr, want, werr)
	}
}

func TestCanonicalJSONMatchesMarshal(t *testing.T) {
	for _, s := range canonicalSeeds {
		checkCanonical(t, s)
	}
	// Values no decoder produces but coercion might: invalid or empty numbers
	// go to json.Marshal, which reports them.
	for _, n := range []json.Number{"+3", "", "01", "1.", ".5", "1e", "3"} {
		want, werr := json.Marshal(map[string]any{"n": n})
		got, gerr := canonicalJSON(map[string]any{"n": n})
		if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
			t.Errorf("number %q: got %q, %v; json.Marshal gives %q, %v", n, got, gerr, want, werr)
		}
	}
}

func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add(s)
	}
	f.Fuzz(checkCanonical)
}

// closeBrace is a repairer that appends a missing closing brace.
type closeBrace struct{}

func (closeBrace) Repair(raw string) (string, []string, error) {
	return raw + "}", []string{"closed the object"}, nil
}

func TestPrepareArgumentsUnchanged(t *testing.T) {
	r := NewRegistry(nil)
	r.MustRegister(echoTool(t, "echo"))
	r.MustRegister(prepTool{echoTool(t, "prep")})
	r.MustRegister(Func(Spec{Name: "free"}, func(context.Context, Call) (*Result, error) { return nil, nil }))
	snap := r.Snapshot().WithRepairer(closeBrace{})
	for _, tc := range []struct {
		name, tool, args string
		unchanged        bool
		canonical        string
	}{
		{"valid, keys out of order", "echo", `{"path": "<a>", "count": 3, "force": true}`, true, `{"count":3,"force":true,"path":"\u003ca\u003e"}`},
		{"valid, no schema", "free", `{"path":"x","count":2}`, true, `{"count":2,"path":"x"}`},
		{"coerced", "echo", `{"path": "a", "count": "3"}`, false, `{"count":3,"path":"a"}`},
		{"repaired", "echo", `{"path": "a", "count": 3`, false, `{"count":3,"path":"a"}`},
		{"empty", "free", "  ", false, `{}`},
		{"rewritten by the preparer", "prep", "", false, `{"count":1,"path":"default.txt"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := snap.Prepare(llm.ToolCall{ID: "c1", Name: tc.tool, Arguments: tc.args})
			if !p.Ready() {
				t.Fatalf("not ready: %s", p.Result.Content)
			}
			if p.ArgumentsUnchanged != tc.unchanged || string(p.Arguments) != tc.canonical {
				t.Errorf("Prepare(%q) = %s, unchanged %v; want %s, unchanged %v",
					tc.args, p.Arguments, p.ArgumentsUnchanged, tc.canonical, tc.unchanged)
			}
		})
	}
}
