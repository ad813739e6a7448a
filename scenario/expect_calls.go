package scenario

import (
	"encoding/json"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/internal/yamlx"
)

// The ways expect.calls compares its list with the calls made.
const (
	// MatchExact: the calls made are exactly the list, in order.
	MatchExact = "exact"
	// MatchInOrder: the list is a subsequence of the calls made, in order.
	MatchInOrder = "in_order"
	// MatchAnyOrder: the calls made are the list, in any order.
	MatchAnyOrder = "any_order"
)

// CallsExpect is expect.calls: the calls made, with their arguments.
type CallsExpect struct {
	// Match is MatchExact, MatchInOrder or MatchAnyOrder; "" means exact.
	Match string
	// Only, when not nil, leaves out calls to tools not named in it.
	Only []string
	// SkipFailed leaves out calls whose result was a failure (failed: false).
	SkipFailed bool
	// List is the expected calls; empty means none (of the Only tools).
	List []CallExpect
}

// CallExpect is one item of expect.calls.list.
type CallExpect struct {
	Name string
	// Arguments is the expected arguments as a JSON value; nil means any.
	Arguments any
	// Partial compares only the top-level keys Arguments gives.
	Partial bool
}

var (
	callsKeys    = []string{"match", "only", "failed", "list"}
	callItemKeys = []string{"name", "arguments", "partial"}
)

func decodeCallsExpect(d *yamlx.Decoder, n *yaml.Node, path string) (*CallsExpect, error) {
	ce := &CallsExpect{}
	seen, err := d.Fields(n, path, callsKeys, func(key string, v *yaml.Node) error {
		p := yamlx.Join(path, key)
		var err error
		switch key {
		case "match":
			ce.Match, err = d.Enum(v, p, MatchExact, MatchInOrder, MatchAnyOrder)
		case "only":
			ce.Only, err = d.Strs(v, p)
		case "failed":
			var b bool
			if b, err = d.Bool(v, p); err == nil && b {
				err = d.Errf(v, p, "failed: true is the default (failed calls count); write failed: false to leave them out")
			}
			ce.SkipFailed = err == nil
		case "list":
			if err = d.Want(v, p, yaml.SequenceNode); err != nil {
				return err
			}
			ce.List = []CallExpect{}
			for i, c := range v.Content {
				item, err := decodeCallItem(d, c, yamlx.Index(p, i))
				if err != nil {
					return err
				}
				ce.List = append(ce.List, item)
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !seen.Has("list") {
		return nil, d.Errf(n, path, "missing key \"list\" (the expected calls; list: [] with only: means none of those tools was called)")
	}
	if ce.Match == "" {
		ce.Match = MatchExact
	}
	return ce, nil
}

func decodeCallItem(d *yamlx.Decoder, n *yaml.Node, path string) (CallExpect, error) {
	var item CallExpect
	if n.Kind == yaml.ScalarNode {
		name, err := d.Str(n, path)
		item.Name = name
		return item, err
	}
	seen, err := d.Fields(n, path, callItemKeys, func(key string, v *yaml.Node) error {
		p := yamlx.Join(path, key)
		var err error
		switch key {
		case "name":
			item.Name, err = d.Str(v, p)
		case "arguments":
			item.Arguments, err = argumentsValue(d, v, p)
		case "partial":
			item.Partial, err = d.Bool(v, p)
		}
		return err
	})
	if err != nil {
		return item, err
	}
	if !seen.Has("name") {
		return item, d.Errf(n, path, "missing key \"name\"")
	}
	if item.Partial {
		if _, ok := item.Arguments.(map[string]any); !ok {
			return item, d.Errf(n, path, "partial: true needs arguments: {...} (the keys to compare)")
		}
	}
	return item, nil
}

// argumentsValue decodes expected arguments: a YAML mapping, or a string
// holding JSON, as a JSON value.
func argumentsValue(d *yamlx.Decoder, n *yaml.Node, path string) (any, error) {
	var raw []byte
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		raw = []byte(n.Value)
	} else {
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, d.Errf(n, path, "%v", err)
		}
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil, d.Errf(n, path, "cannot be written as JSON: %v", err)
		}
	}
	v, err := jsonvalue.Decode(raw)
	if err != nil {
		return nil, d.Errf(n, path, "not a JSON value: %v", err)
	}
	return v, nil
}

// String is the expected call as messages show it: the name, then the
// arguments as canonical JSON ("…" for the keys a partial match ignores).
func (e *CallExpect) String() string {
	switch {
	case e.Arguments == nil:
		return e.Name + " (any arguments)"
	case e.Partial:
		s := jsonvalue.Canonical(e.Arguments)
		if s == "{}" {
			return e.Name + " {…}"
		}
		return e.Name + " " + strings.TrimSuffix(s, "}") + ",…}"
	}
	return e.Name + " " + jsonvalue.Canonical(e.Arguments)
}
