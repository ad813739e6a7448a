package yamlx

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestText(t *testing.T) {
	for _, c := range []struct{ s, want string }{
		{"plain", "k: plain\n"},
		{"a\nb", "k: |-\n  a\n  b\n"},
		{" indented\nline", "k: |2-\n   indented\n  line\n"},
		{"tab at end\t\nx", "k: |-\n  tab at end\t\n  x\n"},
		{"space at end \nx", "k: |-\n  space at end \n  x\n"},
		{"\ttab first\nx", "k: \"\\ttab first\\nx\"\n"},
		{"cr\r\n", "k: \"cr\\r\\n\"\n"},
		{"sep\u2028", "k: \"sep\\L\"\n"},
		{"\xff", "k: !!binary /w==\n"},
		{"a\ufffe \nb", "k: \"a\\uFFFE \\nb\"\n"},
	} {
		got, err := Marshal(Add(Map(), "k", Text(c.s)))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("Text(%q) gives %q, want %q", c.s, got, c.want)
		}
		var back struct{ K string }
		if err := yaml.Unmarshal(got, &back); err != nil || back.K != c.s {
			t.Errorf("Text(%q) reads back as %q, %v", c.s, back.K, err)
		}
	}
}

func TestQuoted(t *testing.T) {
	if n := Quoted("{}"); n.Style != yaml.SingleQuotedStyle {
		t.Errorf("style = %v, want single-quoted", n.Style)
	}
	if n := Quoted(" a\nb"); n.Style != yaml.LiteralStyle {
		t.Errorf("Quoted(multi-line) style = %v, want literal", n.Style)
	}
}

// TestMarshalFlowLiteral: multi-line text with trailing spaces inside a flow
// collection has no literal block (the emitter double-quotes it); writing
// one there by hand made YAML that does not parse.
func TestMarshalFlowLiteral(t *testing.T) {
	inner := Add(Map(), "k", Text("a \nb"))
	inner.Style = yaml.FlowStyle
	got, err := Marshal(Add(Map(), "m", Seq(inner, FlowSeq(Text("c \nd")))))
	if err != nil {
		t.Fatal(err)
	}
	want := "m:\n  - {k: \"a \\nb\"}\n  - [\"c \\nd\"]\n"
	if string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestMarshalBlockAfterComplexKey: a block written by hand (trailing spaces)
// in a collection that starts on the line of a complex key's ":" is indented
// under that collection, as the emitter indents it.
func TestMarshalBlockAfterComplexKey(t *testing.T) {
	for _, c := range []struct {
		value *yaml.Node
		want  string
	}{
		{Seq(Text("x \ny")), "? |-\n  a\n  b\n: - |-\n    x \n    y\n"},
		{Add(Map(), "k", Text("x \ny")), "? |-\n  a\n  b\n: k: |-\n    x \n    y\n"},
		{Text("x \ny"), "? |-\n  a\n  b\n: |-\n  x \n  y\n"},
	} {
		got, err := Marshal(Add(Map(), "a\nb", c.value))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
		var back map[string]any
		if err := yaml.Unmarshal(got, &back); err != nil {
			t.Errorf("%q does not parse: %v", got, err)
		}
	}
}

// TestAddKeyReadsBack: a multi-line key starting with a tab is written so
// that it reads back (a literal block cannot start with a tab).
func TestAddKeyReadsBack(t *testing.T) {
	for _, k := range []string{"\tx\ny", "a\nb", "\tx", " x\ny"} {
		got, err := Marshal(Add(Map(), k, Text("v")))
		if err != nil {
			t.Fatal(err)
		}
		var back map[string]string
		if err := yaml.Unmarshal(got, &back); err != nil || back[k] != "v" || len(back) != 1 {
			t.Errorf("key %q: %q reads back as %q, %v", k, got, back, err)
		}
	}
}

func TestHasTrailingSpace(t *testing.T) {
	for s, want := range map[string]bool{"": false, "a": false, "a ": true, "a\t": true, "a \nb": true, "a\nb\t": true,
		"a\n b": false, " a\nb": false, "a\n\n": false, "\n \n": true} {
		if got := hasTrailingSpace(s); got != want {
			t.Errorf("hasTrailingSpace(%q) = %v, want %v", s, got, want)
		}
	}
}
