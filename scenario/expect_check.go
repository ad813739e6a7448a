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
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
		if len(items) == 0 {
			return nil, d.Errf(n, path, "empty (want {name: CHECK, with: {...}} or a list of them)")
		}
	}
	var out []CheckExpect
	for i, c := range items {
		p := path
		if n.Kind == yaml.SequenceNode {
			p = yamlx.Index(path, i)
		}
		if c.Kind != yaml.MappingNode {
			return nil, d.Errf(c, p, "want a mapping {name: CHECK, with: {...}}, got %s", yamlx.Describe(c))
		}
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
		if !seen["name"] {
			return nil, d.Errf(c, p, "missing key \"name\" (the registered check to call)")
		}
		out = append(out, ce)
	}
	return out, nil
}
