package yamlx

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestMarshalWritesLiteralBlocksWithTrailingSpaces(t *testing.T) {
	diff := "@@ -1,3 +1,3 @@\n # Title\n \n-old\n+new\n"
	m := Map()
	Add(m, "turns", Seq(Add(Add(Map(), "turn", Int(1)), "diff", Text(diff))))
	Add(m, "final", Text("one \ntwo"))
	got, err := Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := "turns:\n  - turn: 1\n    diff: |\n      @@ -1,3 +1,3 @@\n       # Title\n       \n      -old\n      +new\nfinal: |-\n  one \n  two\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	var back struct {
		Turns []struct{ Diff string }
		Final string
	}
	if err := yaml.Unmarshal(got, &back); err != nil || back.Turns[0].Diff != diff || back.Final != "one \ntwo" {
		t.Errorf("read back %+v, %v", back, err)
	}
	if m.Content[1].Content[0].Content[3].Value != diff {
		t.Error("Marshal changed the node it was given")
	}
}

// TestMarshalRoundTripsRandomText: whatever style a string is written in, it
// reads back exactly, in mappings, sequences and nested positions.
func TestMarshalRoundTripsRandomText(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "b", " ", "  ", "\t", "\n", "\n", "#", ": ", "- ", "'", "\"", "|", "é", "x y", "-", "@@"}
	for i := range 3000 {
		var b strings.Builder
		for range rng.IntN(12) + 1 {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		doc := Map()
		Add(doc, "key", Text(s))
		Add(doc, "list", Seq(Text(s), Add(Map(), "inner", Text(s))))
		out, err := Marshal(doc)
		if err != nil {
			t.Fatalf("%d %q: %v", i, s, err)
		}
		var back map[string]any
		if err := yaml.Unmarshal(out, &back); err != nil {
			t.Fatalf("%q: output does not parse: %v\n%s", s, err, out)
		}
		want := map[string]any{"key": s, "list": []any{s, map[string]any{"inner": s}}}
		if !reflect.DeepEqual(back, want) {
			t.Fatalf("%q did not round-trip:\n%s\nread back %#v", s, out, back)
		}
	}
}
