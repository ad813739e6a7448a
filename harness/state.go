package harness

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/fixtures"
	"github.com/tapeloop/tapeloop/internal/yamlx"
)

// worldState snapshots the run's worlds (fixtures.World values shared through
// fixtures.Shared) as JSON values by key: objects are map[string]any, arrays
// []any, numbers float64. It is nil when the run shares no world.
func worldState(worlds map[string]fixtures.World) (map[string]any, error) {
	if len(worlds) == 0 {
		return nil, nil
	}
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(worlds)) {
		v, err := jsonValue(worlds[k].State())
		if err != nil {
			return nil, fmt.Errorf("state.%s: the world's snapshot is not JSON: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

// jsonValue turns v into its plain JSON form by encoding and decoding it, so
// that two values compare equal exactly when their JSON does.
func jsonValue(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// canonicalJSON is v as compact JSON with sorted keys, for comparisons and
// messages.
func canonicalJSON(v any) string {
	data, err := json.Marshal(plainNumbers(v))
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(data)
}

// stateNode renders a JSON value as YAML: mappings with sorted keys, text as
// the goldens write text, numbers in their shortest JSON form.
func stateNode(v any) *yaml.Node {
	switch v := v.(type) {
	case map[string]any:
		m := yamlx.Map()
		for _, k := range slices.Sorted(maps.Keys(v)) {
			yamlx.Add(m, k, stateNode(v[k]))
		}
		if len(v) == 0 {
			m.Style = yaml.FlowStyle
		}
		return m
	case []any:
		s := yamlx.Seq()
		for _, item := range v {
			s.Content = append(s.Content, stateNode(item))
		}
		if len(v) == 0 {
			s.Style = yaml.FlowStyle
		}
		return s
	case string:
		return yamlx.Text(v)
	case bool:
		return yamlx.Bool(v)
	case float64:
		s, tag := stateNumber(v)
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: s}
	default: // nil
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
}

// stateNumber is a state number as the golden writes it: its shortest JSON
// form, tagged !!int when yaml.v3 reads that text as an integer (a whole
// number within 64 bits) and !!float otherwise (1e20's digits), so that the
// golden reads back.
func stateNumber(v float64) (text, tag string) {
	s := jsonFloat(v)
	if !strings.ContainsAny(s, ".eE") {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return s, "!!int"
		}
		if _, err := strconv.ParseUint(s, 10, 64); err == nil {
			return s, "!!int"
		}
	}
	return s, "!!float"
}

// jsonFloat is v as encoding/json writes a float64 (canonicalJSON(v)), for
// the finite numbers a state holds, without its allocations: the shortest
// decimal, in exponent form below 1e-6 and from 1e21 on, the exponent with
// no leading zero.
func jsonFloat(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return canonicalJSON(v)
	}
	format := byte('f')
	if abs := math.Abs(v); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], v, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1] // e-07 → e-7
		b = b[:n-1]
	}
	return string(b)
}

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
		val, err := jsonValue(yamlJSON(raw))
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

// Resolve returns the value at the JSON pointer p (RFC 6901: "/a/b", "~1"
// for "/", "~0" for "~") in v, and whether it exists. "" is v itself.
func Resolve(v any, p string) (any, bool) {
	if p == "" {
		return v, true
	}
	if !strings.HasPrefix(p, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(p[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := v.(type) {
		case map[string]any:
			x, ok := c[tok]
			if !ok {
				return nil, false
			}
			v = x
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// checkState returns a message for each expect.state entry that does not hold.
func checkState(se *StateExpect, state map[string]any) []string {
	var out []string
	var whole any = map[string]any{}
	if state != nil {
		whole = map[string]any(state)
	}
	if se.Whole != nil {
		want, got := canonicalJSON(se.Whole), canonicalJSON(whole)
		if want != got {
			out = append(out, fmt.Sprintf("expected the state to be %s, found %s", want, got))
		}
	}
	for _, pe := range se.Pointers {
		got, ok := Resolve(whole, pe.Pointer)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("expected %s to be %s, found no such value (state: %s)", pe.Pointer, canonicalJSON(pe.Value), clip(canonicalJSON(whole))))
		case canonicalJSON(got) != canonicalJSON(pe.Value):
			out = append(out, fmt.Sprintf("expected %s to be %s, found %s", pe.Pointer, canonicalJSON(pe.Value), canonicalJSON(got)))
		}
	}
	return out
}
