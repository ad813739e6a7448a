package tape

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// TestOpaqueValuesRandom: opaque values drawn from an alphabet of what
// trips YAML (spaces and tabs, quotes, colons, hashes, dashes, non-ASCII,
// line breaks) read back as written, whatever their length.
func TestOpaqueValuesRandom(t *testing.T) {
	alphabet := []rune("AZaz09+/=_- \t\"':#{}[],&*!|>%@`é€\n\\")
	rng := rand.New(rand.NewPCG(36, 1))
	wrapped := 0
	for k := range 500 {
		rs := make([]rune, rng.IntN(300))
		for i := range rs {
			rs[i] = alphabet[rng.IntN(len(alphabet))]
			if k%2 == 0 && rs[i] == '\n' {
				rs[i] = 'n' // half the values on one line, long ones written as blocks
			}
		}
		if _, ok := wrapOpaque(string(rs)); ok {
			wrapped++
		}
		s := string(rs)
		tp := &Tape{Entries: []Entry{{Response: &llm.Response{Message: llm.Message{Role: llm.RoleAssistant,
			Reasoning: []llm.Reasoning{{Signature: s + "x"}}, ToolCalls: []llm.ToolCall{{Name: "f", Signature: s}}}}}}}
		var buf bytes.Buffer
		if err := Encode(&buf, tp); err != nil {
			t.Fatal(err)
		}
		out := buf.Bytes()
		got, err := Decode(bytes.NewReader(out), "t.yaml")
		if err != nil {
			t.Fatalf("%q: %v\n%s", s, err, out)
		}
		m := got.Entries[0].Response.Message
		if m.ToolCalls[0].Signature != s || m.Reasoning[0].Signature != s+"x" {
			t.Fatalf("%q read back as %q and %q\n%s", s, m.ToolCalls[0].Signature, m.Reasoning[0].Signature, out)
		}
	}
	if wrapped < 100 {
		t.Errorf("only %d of 500 values were written as blocks; the test no longer exercises them", wrapped)
	}
}
