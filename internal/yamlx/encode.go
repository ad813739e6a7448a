package yamlx

import (
	"bytes"
	"encoding/base64"
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

// Add appends key: value to mapping m and returns m.
func Add(m *yaml.Node, key string, value *yaml.Node) *yaml.Node {
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, value)
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

// Null returns a null node.
func Null() *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"} }

// Text returns a string node that reads back as exactly s: a literal block for
// multi-line text, plain or quoted otherwise, double-quoted where a literal
// block cannot hold s or would need an indentation indicator (multi-line text
// starting with a space) or would end a line in white space, and !!binary for
// invalid UTF-8.
func Text(s string) *yaml.Node {
	if utf8.ValidString(s) && strings.Contains(s, "\n") && (strings.HasPrefix(s, " ") || hasTrailingSpace(s)) {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
	}
	return Block(s)
}

// Quoted is Text for a value that must read as a string even when it looks like
// something else (JSON, a number): single-quoted on one line.
func Quoted(s string) *yaml.Node { return singleQuoted(Text(s)) }

// Block is Text that keeps more multi-line text in a literal block: it leaves
// the style to the emitter wherever the emitter holds s exactly (leading
// spaces get an indentation indicator, trailing tabs stay), and double-quotes
// only text holding line breaks other than \n and multi-line text starting
// with a tab. Tape files use it; the two differ in the bytes they give, not in
// what reads back.
func Block(s string) *yaml.Node {
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

// QuotedBlock is Quoted's counterpart of Block.
func QuotedBlock(s string) *yaml.Node { return singleQuoted(Block(s)) }

// singleQuoted single-quotes n when it is a plain string.
func singleQuoted(n *yaml.Node) *yaml.Node {
	if n.Style == 0 && n.Tag == "!!str" {
		n.Style = yaml.SingleQuotedStyle
	}
	return n
}

func hasTrailingSpace(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		if strings.HasSuffix(line, " ") || strings.HasSuffix(line, "\t") {
			return true
		}
	}
	return false
}

// Marshal writes n as YAML with two-space indentation.
func Marshal(n *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
