package harness

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// worldState snapshots the run's worlds (toolkit.World values shared through
// toolkit.Shared) as JSON values by key: objects are map[string]any, arrays
// []any, numbers float64. It is nil when the run shares no world.
func worldState(worlds map[string]toolkit.World) (map[string]any, error) {
	if len(worlds) == 0 {
		return nil, nil
	}
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(worlds)) {
		v, err := jsonvalue.Plain(worlds[k].State())
		if err != nil {
			return nil, fmt.Errorf("state.%s: the world's snapshot is not JSON: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

// stateNumber is a state number as the golden writes it: its shortest JSON
// form, tagged "!!float " when it is a whole number beyond 64 bits (1e20's
// digits), which YAML would not read back as a number otherwise.
func stateNumber(v float64) string {
	s := jsonFloat(v)
	if !strings.ContainsAny(s, ".eE") {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return s
		}
		if _, err := strconv.ParseUint(s, 10, 64); err == nil {
			return s
		}
		return "!!float " + s
	}
	return s
}

// jsonFloat is v as encoding/json writes a float64 (jsonvalue.Canonical(v)), for
// the finite numbers a state holds, without its allocations: the shortest
// decimal, in exponent form below 1e-6 and from 1e21 on, the exponent with
// no leading zero.
func jsonFloat(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return jsonvalue.Canonical(v)
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

// resolvePointer returns the value at the JSON pointer p (RFC 6901: "/a/b", "~1"
// for "/", "~0" for "~") in v, and whether it exists. "" is v itself.
func resolvePointer(v any, p string) (any, bool) {
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
func checkState(se *scenario.StateExpect, state map[string]any) []string {
	var out []string
	var whole any = map[string]any{}
	if state != nil {
		whole = map[string]any(state)
	}
	if se.Whole != nil {
		want, got := jsonvalue.Canonical(se.Whole), jsonvalue.Canonical(whole)
		if want != got {
			out = append(out, fmt.Sprintf("expected the state to be %s, found %s", want, got))
		}
	}
	for _, pe := range se.Pointers {
		got, ok := resolvePointer(whole, pe.Pointer)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("expected %s to be %s, found no such value (state: %s)", pe.Pointer, jsonvalue.Canonical(pe.Value), clip(jsonvalue.Canonical(whole))))
		case jsonvalue.Canonical(got) != jsonvalue.Canonical(pe.Value):
			out = append(out, fmt.Sprintf("expected %s to be %s, found %s", pe.Pointer, jsonvalue.Canonical(pe.Value), jsonvalue.Canonical(got)))
		}
	}
	return out
}
