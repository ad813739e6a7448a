package yamlx

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Map returns an empty mapping node; add pairs with Add.
func Map() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

// Seq returns a sequence node of the given items.
func Seq(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: items}
}

// FlowSeq returns a sequence node written on one line: [a, b].
func FlowSeq(items ...*yaml.Node) *yaml.Node {
	n := Seq(items...)
	n.Style = yaml.FlowStyle
	return n
}

// Add appends key: value to mapping m and returns m. A multi-line key
// starting with a tab is double-quoted, as Text does: in a literal block the
// parser cannot tell the tab from indentation.
func Add(m *yaml.Node, key string, value *yaml.Node) *yaml.Node {
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
	if strings.HasPrefix(key, "\t") && strings.Contains(key, "\n") {
		k.Style = yaml.DoubleQuotedStyle
	}
	m.Content = append(m.Content, k, value)
	return m
}

// Int returns an integer node.
func Int(i int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(i)}
}

// Bool returns a boolean node.
func Bool(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
}

// Text returns a string node that reads back as exactly s: a literal block for
// multi-line text (with an indentation indicator when it starts with a space;
// Marshal writes blocks holding trailing white space itself), plain or quoted
// otherwise, double-quoted where no literal block can hold s (line breaks other
// than \n, multi-line text starting with a tab), and !!binary for invalid
// UTF-8.
func Text(s string) *yaml.Node {
	if !utf8.ValidString(s) {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!binary", Value: base64.StdEncoding.EncodeToString([]byte(s))}
	}
	// A literal block whose first line starts with a tab has no indentation
	// indicator, and the parser cannot tell the tab from indentation.
	if strings.ContainsAny(s, "\r\u0085\u2028\u2029") || strings.HasPrefix(s, "\t") && strings.Contains(s, "\n") {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
	}
	if strings.Contains(s, "\n") {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.LiteralStyle}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// Quoted is Text for a value that must read as a string even when it looks like
// something else (JSON, a number): single-quoted on one line.
func Quoted(s string) *yaml.Node { return singleQuoted(Text(s)) }

// singleQuoted single-quotes n when it is a plain string.
func singleQuoted(n *yaml.Node) *yaml.Node {
	if n.Style == 0 && n.Tag == "!!str" {
		n.Style = yaml.SingleQuotedStyle
	}
	return n
}

// hasTrailingSpace reports whether a line of s ends in a space or a tab.
func hasTrailingSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] == ' ' || s[i] == '\t') && (i+1 == len(s) || s[i+1] == '\n') {
			return true
		}
	}
	return false
}

// Marshal writes n as YAML with two-space indentation.
//
// yaml.v3's emitter will not write a literal block holding a line with
// trailing whitespace (a diff's blank context line is a single space), though
// YAML allows it, and falls back to one long double-quoted line that is
// unreadable in review. Marshal writes those blocks itself: such a scalar is
// emitted as a unique placeholder, which is then replaced by the block,
// indented for its place. Inside a flow collection, where no block can go,
// such text is left to the emitter, which double-quotes it.
func Marshal(n *yaml.Node) ([]byte, error) {
	var blocks []*yaml.Node
	var values []string
	var collect func(*yaml.Node)
	collect = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode && n.Style == yaml.LiteralStyle && hasTrailingSpace(n.Value) && literalByHand(n.Value) {
			blocks = append(blocks, n)
			values = append(values, n.Value)
			return
		}
		if n.Style&yaml.FlowStyle != 0 {
			return // no blocks in a flow collection: the emitter double-quotes them
		}
		for _, c := range n.Content {
			collect(c)
		}
	}
	collect(n)
	tokens := make([]string, len(blocks))
	for i, b := range blocks {
		tokens[i] = fmt.Sprintf("yamlx-literal-block-%d-%s", i, placeholderSalt)
		b.Value, b.Style = tokens[i], 0
	}
	defer func() {
		for i, b := range blocks {
			b.Value, b.Style = values[i], yaml.LiteralStyle
		}
	}()
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	for i, tok := range tokens {
		var err error
		if out, err = replaceWithBlock(out, tok, values[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// placeholderSalt makes placeholders that no real text contains.
const placeholderSalt = "7d1c0e5b9a2f4386"

// literalByHand reports whether s can be written as a literal block by
// replaceWithBlock: multi-line, valid UTF-8, printable apart from tabs, not
// starting with a space, a tab or an empty line (which would need an
// indentation indicator), and ending in at most one line break.
func literalByHand(s string) bool {
	if !strings.Contains(s, "\n") || !utf8.ValidString(s) || strings.HasSuffix(s, "\n\n") {
		return false
	}
	if s[0] == ' ' || s[0] == '\t' || s[0] == '\n' {
		return false
	}
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || r == 0x85 || r == 0xfeff || r == 0x2028 || r == 0x2029 || r == 0xfffe || r == 0xffff:
			return false
		case r >= 0x80 && r <= 0x9f:
			return false
		}
	}
	return true
}

// replaceWithBlock replaces the placeholder tok in out (a plain scalar on its
// own line, after "key: ", "- " or a complex key's ": ") with a literal block
// holding s.
func replaceWithBlock(out []byte, tok, s string) ([]byte, error) {
	at := bytes.Index(out, []byte(tok))
	if at < 0 {
		return nil, fmt.Errorf("yamlx: lost the placeholder of a literal block")
	}
	lineStart := bytes.LastIndexByte(out[:at], '\n') + 1
	line := out[lineStart:at]
	col := 0
	for col < len(line) && line[col] == ' ' {
		col++
	}
	// "- " starts a sequence item, ": " the value of a complex key; a
	// collection may start on the same line after either.
	for col+1 < len(line) && (line[col] == '-' || line[col] == ':') && line[col+1] == ' ' {
		col += 2
	}
	indent := col
	if lineStart+col != at { // "key: tok": the block is indented under the key
		indent = col + 2
	}
	header := "|-"
	body := s
	if strings.HasSuffix(s, "\n") {
		header, body = "|", strings.TrimSuffix(s, "\n")
	}
	var b strings.Builder
	b.WriteString(header)
	pad := strings.Repeat(" ", indent)
	for _, l := range strings.Split(body, "\n") {
		b.WriteByte('\n')
		if l != "" {
			b.WriteString(pad)
			b.WriteString(l)
		}
	}
	return bytes.Join([][]byte{out[:at], []byte(b.String()), out[at+len(tok):]}, nil), nil
}
