package yamlx

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// countKeys is what a tape counts: a response's tool_calls.
var countKeys = []string{"response", "tool_calls"}

// dumpCounting is dump, but a sequence reached from the root through keys
// with more than over items is written as its node and its count, not its
// items: what a decoder refusing it for its length reads of it.
func dumpCounting(b *strings.Builder, n *yaml.Node, depth int, keys []string, onPath bool, over int) {
	fmt.Fprintf(b, "%s%d/%d %s %q &%s @%d:%d\n", strings.Repeat("  ", depth), n.Kind, n.Style, n.Tag, n.Value, n.Anchor, n.Line, n.Column)
	if onPath && len(keys) == 0 && n.Kind == yaml.SequenceNode && len(n.Content) > over {
		fmt.Fprintf(b, "%s%d items\n", strings.Repeat("  ", depth+1), len(n.Content))
		return
	}
	for i, c := range n.Content {
		next := onPath && n.Kind == yaml.MappingNode && i%2 == 1 && len(keys) > 0 && n.Content[i-1].Kind == yaml.ScalarNode && n.Content[i-1].Value == keys[0]
		rest := keys
		if next {
			rest = keys[1:]
		}
		dumpCounting(b, c, depth+1, rest, next, over)
	}
}

// countedItems reads src's tape item by item with d and dumps each item
// (dumpCounting); fellBack says an item asked for the whole parse.
func countedItems(t *testing.T, d *Decoder, src string, over int) (items []string, counted, fellBack bool) {
	t.Helper()
	root, err := d.ParseCut([]byte(src), "tape")
	if err != nil || root == nil || d.cut == nil {
		t.Fatalf("ParseCut: %v, cut %v", err, d.cut != nil)
	}
	err = d.EachItem(d.cut.placeholder, func(_ int, item *yaml.Node) error {
		var b strings.Builder
		dumpCounting(&b, item, 0, countKeys, true, over)
		items = append(items, b.String())
		counted = counted || holdsOneNodeTwice(item)
		return nil
	})
	if errors.Is(err, ErrCut) {
		return nil, counted, true
	}
	if err != nil {
		t.Fatal(err)
	}
	return items, counted, false
}

// holdsOneNodeTwice reports whether a sequence under n holds one node
// twice, as a counted one does and no parsed one.
func holdsOneNodeTwice(n *yaml.Node) bool {
	if n.Kind == yaml.SequenceNode && len(n.Content) > 1 && n.Content[0] == n.Content[1] {
		return true
	}
	for _, c := range n.Content {
		if holdsOneNodeTwice(c) {
			return true
		}
	}
	return false
}

// TestCountedReadsWhatParseReads checks that an item whose tool_calls are
// counted reads as it does parsed, but for that sequence's items: the
// sequence's node (line, column, style) and count, and every other node;
// that a sequence whose text alone does not make the count exact is
// counted by parsing its items a chunk at a time, or parsed whole when a
// chunk does not read as its items;
// and that text the parser refuses is refused counting too (an item asks
// for the whole parse).
func TestCountedReadsWhatParseReads(t *testing.T) {
	const over = 3
	head := "format: tapeloop/v1\ntape:\n"
	for _, c := range []struct {
		name    string
		tape    string
		counted bool
		invalid bool
	}{
		{"block items", "  - response:\n      content: a\n      tool_calls:\n        - {id: a, name: f}\n        - name: f\n          arguments: {x: [1, 2]}\n        - {name: f}\n        - {name: f} # done\n      finish_reason: stop\n", true, false},
		{"items at the key's indentation", "  - response:\n      tool_calls: # the calls\n      - a\n\n      - b\n      # c\n      - c\n      -\n      usage: {}\n", true, false},
		{"at the end of the text", "- response:\n    tool_calls:\n    - a\n    - b\n    - c\n    - d", true, false},
		{"a flow sequence", "  - response: \n      tool_calls: [a, {b: [1, 2]}, c, d] # four\n  - response: {content: x}\n", true, false},
		{"a flow sequence across lines", "  - response:\n      tool_calls: [\n        a, b,\n\n   c, # three\n   \n        d,\n      ]\n      usage: {}\n", true, false},
		{"no more than over", "  - response:\n      tool_calls:\n        - a\n        - b\n        - c\n", false, false},
		{"under another key", "  - request:\n      tool_calls:\n        - a\n        - b\n        - c\n        - d\n", false, false},
		{"quotes, parsed to be counted", "  - response:\n      tool_calls:\n        - a\n        - b\n        - c\n        - {id: 'd', arguments: '{\"x\": \"- y\"}'}\n        - \"e\n          f\"\n", true, false},
		{"quotes over many chunks", "  - response:\n      tool_calls:\n" + strings.Repeat("        - {id: 'x', name: f}\n", 3*chunkItems+1), true, false},
		{"quoted text across a chunk's end", "  - response:\n      tool_calls:\n" + strings.Repeat("        - 'x'\n", chunkItems-1) + "        - \"x\n        - y\"\n        - z\n", false, false},
		{"an alias across chunks", "  - response:\n      tool_calls:\n        - &a 'x'\n" + strings.Repeat("        - *a\n", chunkItems+1), false, false},
		{"quoted text spanning items", "  - response:\n      tool_calls:\n        - \"a\n        - b\"\n        - c\n        - d\n        - e\n", false, false},
		{"a flow mapping spanning items", "  - response:\n      tool_calls:\n        - {a: x\n        - b}\n        - c\n        - d\n        - e\n", false, false},
		{"a comment inside a flow mapping", "  - response:\n      tool_calls:\n        - {a: x,#b\n          }\n        - c\n        - d\n        - e\n", true, false},
		{"a tag in a flow sequence", "  - response:\n      tool_calls: [!!str a, b, c, d]\n", false, false},
		{"a key after the flow sequence", "  - response:\n      tool_calls: [a, b, c, d]: x\n", false, true},
		{"an empty flow entry", "  - response:\n      tool_calls: [a, , b, c, d]\n", false, true},
		{"a tab in the indentation", "  - response:\n      tool_calls:\n        - a\n        - b\n        - c\n        -\tf\n        - d\n", false, true},
		{"a less indented line", "  - response:\n      tool_calls:\n          - a\n          - b\n          - c\n          - d\n        x: 1\n", false, true},
		{"a text block", "  - response:\n      tool_calls: |\n        - a\n        - b\n        - c\n        - d\n", false, false},
		{"an anchor used after", "  - response:\n      tool_calls:\n        - &x a\n        - b\n        - c\n        - d\n      usage: *x\n", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := head + c.tape
			parsed, _, fellBack := countedItems(t, &Decoder{File: "f.yaml"}, src, over)
			d := &Decoder{File: "f.yaml", Count: Counted{Keys: countKeys, Over: over}}
			got, counted, countedFellBack := countedItems(t, d, src, over)
			if fellBack != c.invalid || countedFellBack != c.invalid {
				t.Fatalf("parsed, the item asks for the whole parse: %v; counting: %v; want %v", fellBack, countedFellBack, c.invalid)
			}
			if strings.Join(got, "") != strings.Join(parsed, "") {
				t.Errorf("counted:\n%s\nparsed:\n%s", strings.Join(got, ""), strings.Join(parsed, ""))
			}
			if counted != c.counted {
				t.Errorf("counted %v, want %v", counted, c.counted)
			}
		})
	}
}

// FuzzCounted checks on any text that counting a response's tool_calls
// (here more than one, parsed two items at a time when the text alone does
// not make the count exact) reads each item as parsing it does, but for that
// sequence's items; where parsing the item fails, that the whole parse reads
// it so too, or refuses the text while the count refuses the sequence (the
// one difference: a refused sequence's items are not parsed, so a syntax
// error in them is not what refuses the text).
//
//	go test ./internal/yamlx -run '^$' -fuzz FuzzCounted -fuzztime 60s
func FuzzCounted(f *testing.F) {
	f.Add("tape:\n  - response:\n      tool_calls:\n        - {a: 1}\n        - b\n      usage: x\n")
	f.Add("tape:\n  - response:\n      tool_calls: [a, {b: [c,\n       d]}, e] # x\n")
	f.Add("tape:\n- response:\n    tool_calls:\n    - \"a\n    - b\"\n    - c\n")
	f.Add("a: &x 1\ntape:\n  - response:\n      tool_calls:\n      - *x\n      - [1,\n        2]\n      - c\n")
	const over = 1
	defer func(n int) { chunkItems = n }(chunkItems)
	chunkItems = 2 // so that the inputs span chunks
	f.Fuzz(func(t *testing.T, src string) {
		d := &Decoder{File: "f.yaml"}
		if root, err := d.ParseCut([]byte(src), "tape"); err != nil || root == nil || d.cut == nil {
			return
		}
		whole, werr := (&Decoder{File: "f.yaml"}).Parse([]byte(src))
		var wholeItems []*yaml.Node
		if werr == nil && whole.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(whole.Content); i += 2 {
				if whole.Content[i].Value == "tape" {
					wholeItems = whole.Content[i+1].Content
				}
			}
		}
		c := &Decoder{File: "f.yaml", Count: Counted{Keys: countKeys, Over: over}}
		if _, err := c.ParseCut([]byte(src), "tape"); err != nil || c.cut == nil {
			t.Fatalf("counting, ParseCut gave %v", err)
		}
		for i, s := range d.cut.items {
			got, gerr := c.parseItem(s)
			want, perr := d.parseItem(s)
			if perr != nil && gerr != nil {
				continue // both ask for the whole parse
			}
			if perr != nil && werr == nil && i < len(wholeItems) {
				want, perr = wholeItems[i], nil
			}
			switch {
			case perr != nil:
				if !holdsOneNodeTwice(got) {
					t.Fatalf("item %d: the parser refuses it (%v); counting read it and counted nothing", i, perr)
				}
			case gerr != nil:
				t.Fatalf("item %d: the parser reads it; counting gave %v", i, gerr)
			default:
				var a, b strings.Builder
				dumpCounting(&a, got, 0, countKeys, true, over)
				dumpCounting(&b, want, 0, countKeys, true, over)
				if a.String() != b.String() {
					t.Fatalf("item %d counted:\n%s\nparsed:\n%s", i, a.String(), b.String())
				}
			}
		}
	})
}

// TestCountingAllocatesNextToNothing checks what Counted is for: EachItem
// gives an item with 20,000 calls in one response (1.2 MB) having
// allocated a fraction of its text, where parsing the calls allocates ~33
// times it; and with the calls' ids quoted, so that they are parsed a
// chunk at a time to be counted, no more than parsing them does.
func TestCountingAllocatesNextToNothing(t *testing.T) {
	for _, c := range []struct {
		name      string
		call      string
		text, pay float64 // the most counting may allocate: per byte of text, and per byte parsing allocates
	}{
		{"counted from the text", "        - {id: c%[1]d, name: echo, arguments: {text: t%[1]d}}\n", 0.5, 0},
		{"parsed a chunk at a time", "        - {id: 'c%[1]d', name: echo, arguments: {text: t%[1]d}}\n", 0, 1.1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("format: tapeloop/v1\ntape:\n  - response:\n      tool_calls:\n")
			for i := range 20000 {
				fmt.Fprintf(&b, c.call, i)
			}
			src := []byte(b.String())
			allocated := func(count bool) (bytes uint64, n int) {
				d := &Decoder{File: "f.yaml"}
				if count {
					d.Count = Counted{Keys: countKeys, Over: 1000}
				}
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				root, err := d.ParseCut(src, "tape")
				if err != nil {
					t.Fatal(err)
				}
				err = d.EachItem(root.Content[3], func(_ int, item *yaml.Node) error {
					n = len(item.Content[1].Content[1].Content)
					return nil
				})
				runtime.ReadMemStats(&after)
				if err != nil {
					t.Fatal(err)
				}
				return after.TotalAlloc - before.TotalAlloc, n
			}
			counting, n := allocated(true)
			parsing, _ := allocated(false)
			t.Logf("%d calls in %d bytes: counting allocated %d bytes, parsing %d", n, len(src), counting, parsing)
			if n != 20000 {
				t.Errorf("read %d calls, want 20000", n)
			}
			if most := c.text*float64(len(src)) + c.pay*float64(parsing); float64(counting) > most {
				t.Errorf("counting allocated %d bytes, more than %.0f (parsing allocated %d)", counting, most, parsing)
			}
		})
	}
}
