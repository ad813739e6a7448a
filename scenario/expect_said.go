package scenario

import (
	"regexp"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
)

// SaidExpect is one item of expect.said: text that some assistant message of
// the run holds (not only the last). Exactly one of Equals, Contains and
// Matches is set.
type SaidExpect struct {
	Equals   *string
	Contains *string
	Matches  *regexp.Regexp
	// IgnoreCase applies to Equals, Contains and Matches alike.
	IgnoreCase bool
	// Line is the item's line in the file; 0 when unknown.
	Line int
}

var saidKeys = []string{"equals", "contains", "matches", "ignore_case"}

func decodeSaid(d *yamlx.Decoder, n *yaml.Node, path string) ([]SaidExpect, error) {
	if err := d.Want(n, path, yaml.SequenceNode); err != nil {
		return nil, err
	}
	var out []SaidExpect
	for i, c := range n.Content {
		p := yamlx.Index(path, i)
		if c.Kind == yaml.ScalarNode {
			return nil, d.Errf(c, p, "want a mapping {equals|contains|matches: TEXT, ignore_case?}, got %s; write {contains: %q}", yamlx.Describe(c), c.Value)
		}
		se := SaidExpect{Line: c.Line}
		var pattern *yaml.Node
		var texts int
		_, err := d.Fields(c, p, saidKeys, func(key string, v *yaml.Node) error {
			var err error
			switch key {
			case "ignore_case":
				se.IgnoreCase, err = d.Bool(v, yamlx.Join(p, key))
				return err
			case "matches":
				pattern = v
			}
			texts++
			s, err := d.Str(v, yamlx.Join(p, key))
			switch key {
			case "equals":
				se.Equals = &s
			case "contains":
				se.Contains = &s
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if texts != 1 {
			return nil, d.Errf(c, p, "want exactly one of equals, contains and matches, found %d", texts)
		}
		if pattern != nil {
			expr := pattern.Value
			if se.IgnoreCase {
				expr = "(?i)" + expr
			}
			re, err := regexp.Compile(expr)
			if err != nil {
				return nil, d.Errf(pattern, yamlx.Join(p, "matches"), "invalid regular expression: %v", err)
			}
			se.Matches = re
		}
		out = append(out, se)
	}
	return out, nil
}
