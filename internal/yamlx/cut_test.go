package yamlx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"weak"

	"go.yaml.in/yaml/v3"
)

// dump renders what a decoder reads of n (kind, style, tag, value, anchor,
// line and column, and the same of everything under it), leaving out
// comments, which no decoder reads.
func dump(b *strings.Builder, n *yaml.Node, depth int) {
	fmt.Fprintf(b, "%s%d/%d %s %q &%s @%d:%d\n", strings.Repeat("  ", depth), n.Kind, n.Style, n.Tag, n.Value, n.Anchor, n.Line, n.Column)
	for _, c := range n.Content {
		dump(b, c, depth+1)
	}
}

// cutOutcome parses src with ParseCut, puts the items EachItem gives back
// under the key, and dumps the result; cut says whether the sequence was cut
// and fellBack whether an item then asked for the whole parse (ErrCut).
func cutOutcome(t *testing.T, src string) (got string, cut, fellBack bool) {
	t.Helper()
	d := &Decoder{File: "f.yaml"}
	root, err := d.ParseCut([]byte(src), "tape")
	if err != nil {
		t.Fatalf("ParseCut: %v", err)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "tape" {
			continue
		}
		seq := root.Content[i+1]
		cut = d.IsCut(seq)
		var items []*yaml.Node
		err := d.EachItem(seq, func(_ int, item *yaml.Node) error {
			items = append(items, item)
			return nil
		})
		if errors.Is(err, ErrCut) {
			return "", cut, true
		}
		if err != nil {
			t.Fatalf("EachItem: %v", err)
		}
		if cut {
			// The whole parse's node for the sequence: block style, at the
			// first item's dash.
			first := d.cut.items[0]
			seq.Content, seq.Style, seq.Line, seq.Column = items, 0, first.line, leadingSpaces(first.text)+1
		}
	}
	var b strings.Builder
	dump(&b, root, 0)
	return b.String(), cut, false
}

// TestParseCutReadsWhatParseReads checks that a document cut by ParseCut and
// read item by item gives the nodes Parse gives, lines included, and that
// text where a cut could read something else is not cut, or falls back.
func TestParseCutReadsWhatParseReads(t *testing.T) {
	const head = "format: tapeloop/v1\ninput: [{role: user, content: go}]\n"
	for _, c := range []struct {
		name     string
		src      string
		cut      bool // cut, and read item by item
		fellBack bool // cut, then an item asked for the whole parse
		invalid  bool // Parse refuses it: ParseCut must refuse it alike, or fall back
	}{
		{name: "items indented", src: head + "tape:\n  - response: {content: a}\n  - response:\n      content: |\n        two\n        lines\n", cut: true},
		{name: "items in column 0, then a key", src: head + "tape:\n- response: {content: a}\n- response: {content: b}\nexpect: {final: b}\n", cut: true},
		{name: "comments and blank lines", src: head + "tape: # recorded\n\n  # first\n  - response: {content: a}\n\n# between\n  - response: {content: b}\n  # last\nexpect: {final: b}\n", cut: true},
		{name: "no line break at the end", src: head + "tape:\n  - response: {content: a}", cut: true},
		{name: "a block text with a dash line", src: head + "tape:\n  - response:\n      content: |\n        - not an item\n  - response: {content: b}\n", cut: true},
		{name: "text with a tab and an item of one dash", src: head + "tape:\n  -\n    response: {content: \"a\tb\"}\n", cut: true},
		{name: "keys before and after", src: "format: tapeloop/v1\ntape:\n  - response: {content: a}\ninput: [{role: user, content: go}]\n", cut: true},
		{name: "quoted text across items", src: head + "tape:\n  - response: {content: \"a\n  - b\"}\n", fellBack: true},
		{name: "a flow sequence across items", src: head + "tape:\n  - response: {tool_calls: [a,\n  - x]}\n", invalid: true},
		{name: "a flow sequence spanning lines", src: head + "tape:\n  - response: {tool_calls: [a,\n  b]}\n"},
		{name: "an alias to an anchor outside", src: "format: tapeloop/v1\ninput: &in [{role: user, content: go}]\ntape:\n  - user: *in\n", fellBack: true},
		{name: "an anchor used outside", src: head + "tape:\n  - response: &r {content: a}\nexpect: {x: *r}\n"},
		{name: "a flow sequence", src: head + "tape: [{response: {content: a}}]\n"},
		{name: "a tagged sequence", src: head + "tape: !!seq\n  - response: {content: a}\n"},
		{name: "a tab in the indentation", src: head + "tape:\n  - response:\n\t  content: a\n", invalid: true},
		{name: "a tab after the indentation", src: head + "tape:\n  - response: {content: a}\n  \t# x\n", invalid: true},
		{name: "a tab inside a text", src: head + "tape:\n  - response:\n      content: |\n        a\n        \tb\n", cut: true},
		{name: "carriage returns", src: strings.ReplaceAll(head+"tape:\n  - response: {content: a}\n", "\n", "\r\n")},
		{name: "a directive", src: "%YAML 1.1\n---\n" + head + "tape:\n  - response: {content: a}\n"},
		{name: "less indented text inside", src: head + "tape:\n    - response: {content: a}\n  - response: {content: b}\n", invalid: true},
		{name: "a key less indented", src: head + "tape:\n    - response: {content: a}\n  x: 1\n", invalid: true},
		{name: "a tape key inside quoted text", src: "format: tapeloop/v1\ndescription: \"a\ntape:\n  - b\"\ninput: [{role: user, content: go}]\n"},
		{name: "no tape", src: head},
		{name: "an empty tape", src: head + "tape:\nexpect: {final: b}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, werr := (&Decoder{File: "f.yaml"}).Parse([]byte(c.src))
			if c.invalid {
				if werr == nil {
					t.Fatal("Parse read it")
				}
				_, cerr := (&Decoder{File: "f.yaml"}).ParseCut([]byte(c.src), "tape")
				if cerr == nil {
					if _, _, fellBack := cutOutcome(t, c.src); !fellBack {
						t.Errorf("ParseCut and EachItem read it; Parse refused it with %v", werr)
					}
				} else if cerr.Error() != werr.Error() {
					t.Errorf("ParseCut refused it with %v; Parse with %v", cerr, werr)
				}
				return
			}
			if werr != nil {
				t.Fatalf("Parse: %v", werr)
			}
			got, cut, fellBack := cutOutcome(t, c.src)
			if cut != (c.cut || c.fellBack) || fellBack != c.fellBack {
				t.Fatalf("cut %v, fell back %v; want cut %v, fell back %v", cut, fellBack, c.cut || c.fellBack, c.fellBack)
			}
			if fellBack {
				return
			}
			var b strings.Builder
			dump(&b, want, 0)
			if got != b.String() {
				t.Errorf("ParseCut read\n%s\nParse read\n%s", got, b.String())
			}
		})
	}
}

// TestParseCutOfEveryBundledScenario checks the same on every scenario in the
// repository that has a tape: each is cut, and reads as Parse reads it.
func TestParseCutOfEveryBundledScenario(t *testing.T) {
	n := 0
	err := filepath.WalkDir("../..", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".golden.yaml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		src := string(data)
		if !strings.HasPrefix(src, "format: tapeloop/v1") && !strings.Contains(src, "\nformat: tapeloop/v1") || !strings.Contains(src, "\ntape:\n") {
			return nil
		}
		want, err := (&Decoder{File: path}).Parse(data)
		if err != nil {
			return nil // a file of a test of bad input
		}
		got, cut, fellBack := cutOutcome(t, src)
		if !cut || fellBack {
			t.Errorf("%s: cut %v, fell back %v; want it cut", path, cut, fellBack)
			return nil
		}
		var b strings.Builder
		dump(&b, want, 0)
		if got != b.String() {
			t.Errorf("%s: ParseCut read what Parse did not", path)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Errorf("only %d scenarios with a tape found", n)
	}
}

// TestEachItemDropsEachItem checks what ParseCut is for: EachItem holds one
// item's nodes at a time, so the nodes of an item the callback has let go of
// are collected before the next is parsed (a weak pointer to the last one is
// cleared by a collection in the next call).
func TestEachItemDropsEachItem(t *testing.T) {
	src := "format: tapeloop/v1\ntape:\n  - response: {content: a}\n  - response: {content: b}\n  - response: {content: c}\n"
	d := &Decoder{File: "f.yaml"}
	root, err := d.ParseCut([]byte(src), "tape")
	if err != nil {
		t.Fatal(err)
	}
	var last weak.Pointer[yaml.Node]
	seen := 0
	err = d.EachItem(root.Content[3], func(i int, item *yaml.Node) error {
		runtime.GC()
		if i > 0 && last.Value() != nil {
			t.Errorf("item %d: the nodes of item %d are still held", i, i-1)
		}
		last = weak.Make(item)
		seen++
		return nil
	})
	if err != nil || seen != 3 {
		t.Fatalf("EachItem gave %d items, %v; want 3", seen, err)
	}
}

// FuzzParseCut checks on any text that ParseCut and EachItem read what
// Parse reads, or refuse it as Parse does, or ask for the whole parse.
//
//	go test ./internal/yamlx -run '^$' -fuzz FuzzParseCut -fuzztime 60s
func FuzzParseCut(f *testing.F) {
	f.Add("format: tapeloop/v1\ntape:\n  - response: {content: a}\n  - response:\n      content: |\n        b\n")
	f.Add("tape:\n- a\n- \"b\n- c\"\nx: 1\n")
	f.Add("a: &x 1\ntape:\n  - *x\n  # c\n  - [1,\n  2]\n")
	f.Fuzz(func(t *testing.T, src string) {
		want, werr := (&Decoder{File: "f.yaml"}).Parse([]byte(src))
		d := &Decoder{File: "f.yaml"}
		root, cerr := d.ParseCut([]byte(src), "tape")
		if werr != nil || cerr != nil {
			if cerr == nil && d.cut == nil {
				t.Fatalf("Parse refused it (%v), ParseCut read it whole", werr)
			}
			if cerr != nil && (werr == nil || cerr.Error() != werr.Error()) {
				t.Fatalf("ParseCut refused it with %v, Parse with %v", cerr, werr)
			}
			if cerr == nil && werr == nil {
				t.Fatal("unreachable")
			}
			if cerr == nil { // cut, and Parse refuses it: an item must ask for the whole parse
				err := d.EachItem(d.cut.placeholder, func(int, *yaml.Node) error { return nil })
				if !errors.Is(err, ErrCut) {
					t.Fatalf("Parse refused it with %v; ParseCut and EachItem read it", werr)
				}
			}
			return
		}
		if want == nil || root == nil {
			if (want == nil) != (root == nil) {
				t.Fatalf("Parse gave %v, ParseCut %v", want, root)
			}
			return
		}
		got, _, fellBack := cutOutcome(t, src)
		if fellBack {
			return
		}
		var b strings.Builder
		dump(&b, want, 0)
		if got != b.String() {
			t.Fatalf("ParseCut read\n%s\nParse read\n%s", got, b.String())
		}
	})
}
