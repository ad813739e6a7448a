package scenario

import "go.yaml.in/yaml/v3"

// RedactStrings returns src with every string under path (a chain of keys
// as SetValue's, e.g. ["setup", "workspace", "files"]) passed through
// redact, written in place with SetValue: the value at path is rewritten
// (or, when the mapping holding it is in flow style, the nearest enclosing
// value whose mapping is a block), the rest of the file kept byte for byte.
// Only values are redacted, never keys. A string redact changes is written
// double-quoted when it was plain, so that a text such as "key: [REDACTED]"
// stays a string. It returns src unchanged when path is missing or redact
// changes nothing.
func RedactStrings(src []byte, file string, path []string, redact func(string) string) ([]byte, error) {
	doc, err := parseForEdit(src, file)
	if err != nil {
		return nil, err
	}
	nodes := []*yaml.Node{doc.Content[0]}
	for _, k := range path {
		n := child(nodes[len(nodes)-1], k)
		if n == nil {
			return src, nil
		}
		nodes = append(nodes, n)
	}
	if !redactValues(nodes[len(path)], redact) {
		return src, nil
	}
	level := len(path)
	for level > 1 && nodes[level-1].Style&yaml.FlowStyle != 0 {
		level--
	}
	return SetValue(src, file, path[:level], nodes[level])
}

// redactValues passes every string scalar of n that is not a mapping key
// through redact, in place, and reports whether one changed.
func redactValues(n *yaml.Node, redact func(string) string) bool {
	changed := false
	switch n.Kind {
	case yaml.ScalarNode:
		if n.ShortTag() != "!!str" {
			return false
		}
		if v := redact(n.Value); v != n.Value {
			n.Value = v
			if n.Style == 0 {
				n.Style = yaml.DoubleQuotedStyle
			}
			changed = true
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			changed = redactValues(n.Content[i], redact) || changed
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			changed = redactValues(c, redact) || changed
		}
	}
	return changed
}

// RedactAllStrings is RedactStrings over the value of each top-level key
// in turn: every string value of the file passes through redact, and only
// the top-level values redact changes are rewritten.
func RedactAllStrings(src []byte, file string, redact func(string) string) ([]byte, error) {
	doc, err := parseForEdit(src, file)
	if err != nil {
		return nil, err
	}
	top := doc.Content[0].Content
	for i := 0; i+1 < len(top); i += 2 {
		if src, err = RedactStrings(src, file, []string{top[i].Value}, redact); err != nil {
			return nil, err
		}
	}
	return src, nil
}
