package scenario

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/internal/yamlx"
)

// StateExpect is expect.state: either the whole state (Whole set), or values
// at JSON pointers (RFC 6901) into it.
type StateExpect struct {
	// Whole, when non-nil, must equal the whole state (every world).
	Whole map[string]any
	// Pointers are checked in file order; each value must equal the one at
	// its pointer.
	Pointers []PointerExpect
}

// PointerExpect is one "/json/pointer: value" entry of expect.state.
type PointerExpect struct {
	Pointer string
	Value   any
}

// decodeStateExpect reads expect.state: a mapping whose keys are all JSON
// pointers (starting with "/"), or none is (the whole state).
func decodeStateExpect(d *yamlx.Decoder, v *yaml.Node, path string) (*StateExpect, error) {
	if err := d.Want(v, path, yaml.MappingNode); err != nil {
		return nil, err
	}
	se := &StateExpect{}
	pointers, plain := 0, 0
	whole := map[string]any{}
	err := d.Pairs(v, path, func(key string, k, c *yaml.Node) error {
		var raw any
		if err := c.Decode(&raw); err != nil {
			return d.Errf(c, yamlx.Join(path, key), "%v", err)
		}
		val, err := jsonvalue.Plain(yamlJSON(raw))
		if err != nil {
			return d.Errf(c, yamlx.Join(path, key), "not a JSON value: %v", err)
		}
		if strings.HasPrefix(key, "/") {
			pointers++
			se.Pointers = append(se.Pointers, PointerExpect{Pointer: key, Value: val})
		} else {
			plain++
			whole[key] = val
		}
		if pointers > 0 && plain > 0 {
			return d.Errf(k, yamlx.Join(path, key), "mixes JSON pointers (keys starting with /) with world names: give either the whole state or pointers into it")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if plain > 0 || len(v.Content) == 0 {
		se.Whole = whole
	}
	return se, nil
}

// yamlJSON converts what yaml.v3 decodes (map[string]any, but also maps with
// other key types) into values encoding/json accepts.
func yamlJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = yamlJSON(x)
		}
		return v
	case map[any]any:
		m := map[string]any{}
		for k, x := range v {
			m[fmt.Sprint(k)] = yamlJSON(x)
		}
		return m
	case []any:
		for i, x := range v {
			v[i] = yamlJSON(x)
		}
		return v
	}
	return v
}
