package tape

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
)

// arguments decodes a tool call's arguments: a string kept byte for byte, or
// a mapping or sequence converted to compact JSON in the order written.
func (d *decoder) arguments(n *yaml.Node, path string) (string, error) {
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		b, err := d.json(nil, n, path)
		return string(b), err
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str", "!!binary", "!!null":
			return d.Str(n, path)
		}
		return "", d.Errf(n, path, "want a string (the raw text) or a mapping, got %s", yamlx.Describe(n))
	}
	return "", d.Want(n, path, yaml.MappingNode)
}

var jsonNumber = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
})

// json appends the compact JSON form of n to b.
func (d *decoder) json(b []byte, n *yaml.Node, path string) ([]byte, error) {
	switch n.Kind {
	case yaml.MappingNode:
		b = append(b, '{')
		keys := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key, err := d.Str(k, path)
			if err != nil {
				if k.Kind == yaml.ScalarNode {
					key, err = k.Value, nil // a number or boolean key becomes its text
				} else {
					return nil, d.Errf(k, path, "want a scalar key, got %s", yamlx.Describe(k))
				}
			}
			if keys[key] {
				return nil, d.Errf(k, path, "duplicate key %q", key)
			}
			keys[key] = true
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, key)
			b = append(b, ':')
			if b, err = d.json(b, v, d.join(path, key)); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case yaml.SequenceNode:
		b = append(b, '[')
		for i, c := range n.Content {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = d.json(b, c, d.index(path, i)); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case yaml.ScalarNode:
		v := n.Value
		switch n.ShortTag() {
		case "!!str", "!!binary", "!!timestamp":
			s := v
			if n.ShortTag() == "!!binary" {
				var err error
				if s, err = d.Str(n, path); err != nil {
					return nil, err
				}
			}
			return appendJSONString(b, s), nil
		case "!!null":
			return append(b, "null"...), nil
		case "!!bool":
			if strings.EqualFold(v, "true") {
				return append(b, "true"...), nil
			}
			return append(b, "false"...), nil
		case "!!int":
			if jsonNumber().MatchString(v) {
				return append(b, v...), nil
			}
			i, err := strconv.ParseInt(v, 0, 64)
			if err != nil {
				return nil, d.Errf(n, path, "integer %s cannot be written as JSON", v)
			}
			return strconv.AppendInt(b, i, 10), nil
		case "!!float":
			if jsonNumber().MatchString(v) {
				return append(b, v...), nil
			}
			f, err := strconv.ParseFloat(strings.ReplaceAll(v, "_", ""), 64)
			if err != nil || f-f != 0 {
				return nil, d.Errf(n, path, "number %s cannot be written as JSON", v)
			}
			return strconv.AppendFloat(b, f, 'g', -1, 64), nil
		}
		return nil, d.Errf(n, path, "cannot write %s as JSON", yamlx.Describe(n))
	}
	return nil, d.Want(n, path, yaml.MappingNode)
}

// appendJSONString appends s as a JSON string without HTML escaping.
func appendJSONString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}
