package scenario

import (
	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
)

// CheckExpect is one item of expect.check: a check of the user's own,
// registered in Go under Name (harness.NewChecker), called with the run's
// outcome and the item's with: node.
type CheckExpect struct {
	// Name is the registered check's name.
	Name string
	// With is the check's configuration node; nil when absent. The check
	// decodes it strictly (toolkit.DecodeWith).
	With *yaml.Node
	// Line is the item's line in the file; 0 when unknown.
	Line int
}

var checkKeys = []string{"name", "with"}

// decodeChecks reads expect.check: one {name, with} mapping or a list of
// them.
func decodeChecks(d *yamlx.Decoder, n *yaml.Node, path string) ([]CheckExpect, error) {
	items, paths, err := mappings(d, n, path, "{name: CHECK, with: {...}}")
	if err != nil {
		return nil, err
	}
	var out []CheckExpect
	for i, c := range items {
		p := paths[i]
		ce := CheckExpect{Line: c.Line}
		seen, err := d.Fields(c, p, checkKeys, func(key string, v *yaml.Node) error {
			var err error
			switch key {
			case "name":
				ce.Name, err = d.Str(v, yamlx.Join(p, key))
				if err == nil && ce.Name == "" {
					err = d.Errf(v, yamlx.Join(p, key), "empty (want the name of a registered check)")
				}
			case "with":
				ce.With = v
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if !seen.Has("name") {
			return nil, d.Errf(c, p, "missing key \"name\" (the registered check to call)")
		}
		out = append(out, ce)
	}
	return out, nil
}

// mappings reads a key that is one mapping or a non-empty list of them
// (expect.check, expect.judge): the items and the path of each. want shows
// an item's form in errors.
func mappings(d *yamlx.Decoder, n *yaml.Node, path, want string) ([]*yaml.Node, []string, error) {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
		if len(items) == 0 {
			return nil, nil, d.Errf(n, path, "empty (want %s or a list of them)", want)
		}
	}
	paths := make([]string, len(items))
	for i, c := range items {
		paths[i] = path
		if n.Kind == yaml.SequenceNode {
			paths[i] = yamlx.Index(path, i)
		}
		if c.Kind != yaml.MappingNode {
			return nil, nil, d.Errf(c, paths[i], "want a mapping %s, got %s", want, yamlx.Describe(c))
		}
	}
	return items, paths, nil
}
