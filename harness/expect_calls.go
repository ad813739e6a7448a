package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/agent"
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
	if !seen["list"] {
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
	if !seen["name"] {
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
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, d.Errf(n, path, "not a JSON value: %v", err)
	}
	return v, nil
}

// decodeJSON decodes one JSON value, numbers as json.Number (their literal
// text), so that equalJSON compares them exactly.
func decodeJSON(raw []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one value")
	}
	return v, nil
}

// equalJSON compares decoded JSON values: objects by keys (order does not
// matter), arrays by element, numbers by exact value (1 equals 1.0 and 1e0;
// 9007199254740993 does not equal 9007199254740992).
func equalJSON(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		b, ok := b.(json.Number)
		return ok && sameNumber(string(a), string(b))
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !equalJSON(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		return ok && slices.EqualFunc(a, b, equalJSON)
	default:
		return a == b
	}
}

// madeCall is one call of the run as expect.calls sees it.
type madeCall struct {
	name   string
	args   any // nil when the arguments never parsed
	text   string
	failed bool
}

// madeCalls returns the run's calls, in the order the model emitted them,
// filtered as ce says. Arguments are those executed (after repair and
// coercion) when the call got that far, else the emitted ones when they
// parse.
func madeCalls(run *agent.RunResult, ce *CallsExpect) []madeCall {
	var out []madeCall
	if run == nil {
		return out
	}
	for _, t := range run.Turns {
		for _, c := range t.Calls {
			if ce.Only != nil && !slices.Contains(ce.Only, c.Call.Name) {
				continue
			}
			failed := c.Result != nil && c.Result.Failed()
			if ce.SkipFailed && failed {
				continue
			}
			raw := []byte(c.Arguments)
			if raw == nil {
				raw = []byte(c.Call.Arguments)
			}
			mc := madeCall{name: c.Call.Name, failed: failed}
			if v, err := decodeJSON(raw); err == nil {
				mc.args = v
				mc.text = canonicalJSON(v)
			} else {
				mc.text = string(c.Call.Arguments)
			}
			out = append(out, mc)
		}
	}
	return out
}

// matches reports whether the call made fits the expected item.
func (e *CallExpect) matches(c madeCall) bool {
	if e.Name != c.name {
		return false
	}
	if e.Arguments == nil {
		return true
	}
	if !e.Partial {
		return c.args != nil && equalJSON(e.Arguments, c.args)
	}
	got, ok := c.args.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range e.Arguments.(map[string]any) {
		if gv, ok := got[k]; !ok || !equalJSON(v, gv) {
			return false
		}
	}
	return true
}

func (e *CallExpect) String() string {
	switch {
	case e.Arguments == nil:
		return e.Name + " (any arguments)"
	case e.Partial:
		s := canonicalJSON(e.Arguments)
		if s == "{}" {
			return e.Name + " {…}"
		}
		return e.Name + " " + strings.TrimSuffix(s, "}") + ",…}"
	}
	return e.Name + " " + canonicalJSON(e.Arguments)
}

func (c madeCall) String() string {
	s := c.name + " " + c.text
	if c.failed {
		s += " (failed)"
	}
	return s
}

// check compares the calls made with the list and returns "" when they fit,
// or the two lists side by side with the first mismatch marked.
func (ce *CallsExpect) check(run *agent.RunResult) string {
	made := madeCalls(run, ce)
	var at []int // at[i]: the made call expected item i is paired with, or -1
	switch ce.Match {
	case MatchExact:
		at = make([]int, len(ce.List))
		for i := range ce.List {
			at[i] = -1
			if i < len(made) && ce.List[i].matches(made[i]) {
				at[i] = i
			}
		}
	case MatchInOrder:
		// Greedy: each expected call takes the first fitting call after the
		// previous one's.
		at = make([]int, len(ce.List))
		next := 0
		for i := range ce.List {
			at[i] = -1
			for j := next; j < len(made); j++ {
				if ce.List[i].matches(made[j]) {
					at[i], next = j, j+1
					break
				}
			}
		}
	case MatchAnyOrder:
		at = anyOrderMatching(ce.List, made)
	}
	rows, expRow, madeRow := sideBySide(ce.List, made, at, ce.Match == MatchExact)
	mark := -1
	for i, j := range at {
		if j < 0 {
			mark = expRow[i]
			break
		}
	}
	if mark < 0 && ce.Match != MatchInOrder {
		// Every expected call fits; a call nothing expects is the mismatch.
		paired := map[int]bool{}
		for _, j := range at {
			paired[j] = true
		}
		for j := range made {
			if !paired[j] {
				mark = madeRow[j]
				break
			}
		}
	}
	if mark < 0 {
		return ""
	}
	return renderSideBySide(rows, mark)
}

// sideBySide lays out the expected and made calls as rows: by index when
// byIndex is set, and otherwise each expected item beside the made call it
// is paired with (at), unpaired ones where they fall in order. It returns the
// rows and the row of each expected item and each made call.
func sideBySide(list []CallExpect, made []madeCall, at []int, byIndex bool) (rows [][2]string, expRow, madeRow []int) {
	expRow, madeRow = make([]int, len(list)), make([]int, len(made))
	add := func(i, j int) {
		var r [2]string
		if i >= 0 {
			r[0] = list[i].String()
			expRow[i] = len(rows)
		}
		if j >= 0 {
			r[1] = made[j].String()
			madeRow[j] = len(rows)
		}
		rows = append(rows, r)
	}
	if byIndex {
		for k := range max(len(list), len(made)) {
			i, j := k, k
			if i >= len(list) {
				i = -1
			}
			if j >= len(made) {
				j = -1
			}
			add(i, j)
		}
		return rows, expRow, madeRow
	}
	paired := map[int]bool{}
	for _, j := range at {
		if j >= 0 {
			paired[j] = true
		}
	}
	next := 0 // the next made call not yet shown, in order
	for i := range list {
		if at[i] < 0 {
			add(i, -1)
			continue
		}
		for ; next < at[i]; next++ {
			if !paired[next] {
				add(-1, next)
			}
		}
		add(i, at[i])
		next = max(next, at[i]+1)
	}
	for ; next < len(made); next++ {
		if !paired[next] {
			add(-1, next)
		}
	}
	return rows, expRow, madeRow
}

// anyOrderMatching pairs each expected item with a distinct made call it
// fits, as many as possible (augmenting paths), preferring earlier calls;
// at[i] is -1 for an item left unpaired.
func anyOrderMatching(list []CallExpect, made []madeCall) []int {
	owner := make([]int, len(made)) // made call -> expected item, or -1
	for j := range owner {
		owner[j] = -1
	}
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for j := range made {
			if seen[j] || !list[i].matches(made[j]) {
				continue
			}
			seen[j] = true
			if owner[j] < 0 || try(owner[j], seen) {
				owner[j] = i
				return true
			}
		}
		return false
	}
	for i := range list {
		try(i, make([]bool, len(made)))
	}
	at := make([]int, len(list))
	for i := range at {
		at[i] = -1
	}
	for j, i := range owner {
		if i >= 0 {
			at[i] = j
		}
	}
	return at
}

// renderSideBySide renders rows as two columns, "expected" and "actual",
// with the mark row flagged by ">" and "-" standing for nothing.
func renderSideBySide(rows [][2]string, mark int) string {
	width := len("expected")
	for _, r := range rows {
		width = max(width, len(clipCall(r[0])))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "    %-*s   %s\n", width, "expected", "actual")
	for i, r := range rows {
		left, right := clipCall(r[0]), clipCall(r[1])
		if left == "" {
			left = "-"
		}
		if right == "" {
			right = "-"
		}
		flag := "  "
		if i == mark {
			flag = "> "
		}
		fmt.Fprintf(&b, "  %s%-*s   %s\n", flag, width, left, right)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// clipCall keeps a rendered call to one readable line.
func clipCall(s string) string {
	if len(s) > 100 {
		return s[:99] + "…"
	}
	return s
}
