package scenario

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
)

// CallAt returns the reference to the call-th call (from 1) of turn turn
// (the model call's number, from 1, as the golden numbers turns): the text
// `{turn: 3, call: 1}`, which every matcher and expectation that names a call
// by ID also accepts. Real models reuse call IDs across turns; a position is
// never ambiguous.
//
//	Expect(outcome).To(ginkgoharness.FailCallWith(scenario.CallAt(3, 1), tools.KindFailed))
func CallAt(turn, call int) string {
	return "{turn: " + strconv.Itoa(turn) + ", call: " + strconv.Itoa(call) + "}"
}

var callAtPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\{\s*turn:\s*(\d+),\s*call:\s*(\d+)\s*\}$`)
})

// ParseCallAt reports the position a reference written by CallAt names;
// ok is false for any other text (a call ID).
func ParseCallAt(ref string) (turn, call int, ok bool) {
	m := callAtPattern().FindStringSubmatch(ref)
	if m == nil {
		return 0, 0, false
	}
	turn, err1 := strconv.Atoi(m[1])
	call, err2 := strconv.Atoi(m[2])
	return turn, call, err1 == nil && err2 == nil
}

// callRefPairs calls fn for each entry of a mapping keyed by call: a call ID
// (a plain key) or a position ({turn: N, call: M}), rejecting duplicates. The
// reference fn gets is the ID or CallAt's text.
func callRefPairs(d *yamlx.Decoder, n *yaml.Node, path string, fn func(ref string, v *yaml.Node) error) error {
	if err := d.Want(n, path, yaml.MappingNode); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var ref string
		switch k.Kind {
		case yaml.ScalarNode:
			if msg, quoted := quotedPosition(k); quoted {
				return d.Errf(k, path, "%s", msg)
			}
			ref = k.Value
		case yaml.MappingNode:
			var turn, call int64
			seenPos, err := d.Fields(k, path, []string{"turn", "call"}, func(key string, v *yaml.Node) error {
				var err error
				switch key {
				case "turn":
					turn, err = d.Int(v, yamlx.Join(path, key), 1, 1<<31)
				case "call":
					call, err = d.Int(v, yamlx.Join(path, key), 1, 1<<31)
				}
				return err
			})
			if err != nil {
				return err
			}
			if !seenPos.Has("turn") || !seenPos.Has("call") {
				return d.Errf(k, path, "a call named by position needs both turn and call, as {turn: 3, call: 1}")
			}
			ref = CallAt(int(turn), int(call))
		default:
			return d.Errf(k, path, "want a call id or a position {turn: N, call: M}, got %s", yamlx.Describe(k))
		}
		if seen[ref] {
			return d.Errf(k, path, "duplicate key %q", ref)
		}
		seen[ref] = true
		if err := fn(ref, v); err != nil {
			return err
		}
	}
	return nil
}

var quotedPositionPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\{\s*turn\s*:\s*(\d+)\s*,\s*call\s*:\s*(\d+)\s*\}$`)
})

// quotedPosition reports whether the scalar key k is a position quoted by
// mistake ("{turn: 1, call: 2}": a string, which would be taken for a call
// id), and the message that says so. A plain scalar cannot start with "{",
// so such a key was always quoted.
func quotedPosition(k *yaml.Node) (msg string, quoted bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(k.Value), "{")
	if !ok || !strings.HasPrefix(strings.TrimSpace(rest), "turn") {
		return "", false
	}
	as := "{turn: N, call: M}"
	if m := quotedPositionPattern().FindStringSubmatch(strings.TrimSpace(k.Value)); m != nil {
		as = "{turn: " + m[1] + ", call: " + m[2] + "}"
	}
	return fmt.Sprintf("the key %q is a string, not a {turn, call} mapping; write the position without quotes, as %s", k.Value, as), true
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
