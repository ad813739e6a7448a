package yamlx

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestTextAndBlock(t *testing.T) {
	for _, c := range []struct{ s, text, block string }{
		{"plain", "k: plain\n", "k: plain\n"},
		{"a\nb", "k: |-\n  a\n  b\n", "k: |-\n  a\n  b\n"},
		{" indented\nline", "k: \" indented\\nline\"\n", "k: |2-\n   indented\n  line\n"},
		{"tab at end\t\nx", "k: |-\n  tab at end\t\n  x\n", "k: |-\n  tab at end\t\n  x\n"},
		{"space at end \nx", "k: |-\n  space at end \n  x\n", "k: |-\n  space at end \n  x\n"},
		{"\ttab first\nx", "k: \"\\ttab first\\nx\"\n", "k: \"\\ttab first\\nx\"\n"},
		{"cr\r\n", "k: \"cr\\r\\n\"\n", "k: \"cr\\r\\n\"\n"},
		{"sep\u2028", "k: \"sep\\L\"\n", "k: \"sep\\L\"\n"},
		{"\xff", "k: !!binary /w==\n", "k: !!binary /w==\n"},
	} {
		for _, v := range []struct {
			name string
			node *yaml.Node
			want string
		}{{"Text", Text(c.s), c.text}, {"Block", Block(c.s), c.block}} {
			got, err := Marshal(Add(Map(), "k", v.node))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != v.want {
				t.Errorf("%s(%q) gives %q, want %q", v.name, c.s, got, v.want)
			}
			var back struct{ K string }
			if err := yaml.Unmarshal(got, &back); err != nil || back.K != c.s {
				t.Errorf("%s(%q) reads back as %q, %v", v.name, c.s, back.K, err)
			}
		}
	}
}

func TestQuoted(t *testing.T) {
	for _, n := range []*yaml.Node{Quoted("{}"), QuotedBlock("{}")} {
		if n.Style != yaml.SingleQuotedStyle {
			t.Errorf("style = %v, want single-quoted", n.Style)
		}
	}
	if n := QuotedBlock(" a\nb"); n.Style != yaml.LiteralStyle {
		t.Errorf("QuotedBlock(multi-line) style = %v, want literal", n.Style)
	}
}
