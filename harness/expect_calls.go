package harness

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/scenario"
)

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
func madeCalls(run *agent.RunResult, ce *scenario.CallsExpect) []madeCall {
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
			if v, err := jsonvalue.Decode(raw); err == nil {
				mc.args = v
				mc.text = jsonvalue.Canonical(v)
			} else {
				mc.text = string(c.Call.Arguments)
			}
			out = append(out, mc)
		}
	}
	return out
}

// callMatches reports whether the call made fits the expected item.
func callMatches(e *scenario.CallExpect, c madeCall) bool {
	if e.Name != c.name {
		return false
	}
	if e.Arguments == nil {
		return true
	}
	if !e.Partial {
		return c.args != nil && jsonvalue.Equal(e.Arguments, c.args)
	}
	got, ok := c.args.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range e.Arguments.(map[string]any) {
		if gv, ok := got[k]; !ok || !jsonvalue.Equal(v, gv) {
			return false
		}
	}
	return true
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
func checkCalls(ce *scenario.CallsExpect, run *agent.RunResult) string {
	made := madeCalls(run, ce)
	var at []int // at[i]: the made call expected item i is paired with, or -1
	switch ce.Match {
	case scenario.MatchExact:
		at = make([]int, len(ce.List))
		for i := range ce.List {
			at[i] = -1
			if i < len(made) && callMatches(&ce.List[i], made[i]) {
				at[i] = i
			}
		}
	case scenario.MatchInOrder:
		// Greedy: each expected call takes the first fitting call after the
		// previous one's.
		at = make([]int, len(ce.List))
		next := 0
		for i := range ce.List {
			at[i] = -1
			for j := next; j < len(made); j++ {
				if callMatches(&ce.List[i], made[j]) {
					at[i], next = j, j+1
					break
				}
			}
		}
	case scenario.MatchAnyOrder:
		at = anyOrderMatching(ce.List, made)
	}
	rows, expRow, madeRow := sideBySide(ce.List, made, at, ce.Match == scenario.MatchExact)
	mark := -1
	for i, j := range at {
		if j < 0 {
			mark = expRow[i]
			break
		}
	}
	if mark < 0 && ce.Match != scenario.MatchInOrder {
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
func sideBySide(list []scenario.CallExpect, made []madeCall, at []int, byIndex bool) (rows [][2]string, expRow, madeRow []int) {
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
func anyOrderMatching(list []scenario.CallExpect, made []madeCall) []int {
	owner := make([]int, len(made)) // made call -> expected item, or -1
	for j := range owner {
		owner[j] = -1
	}
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for j := range made {
			if seen[j] || !callMatches(&list[i], made[j]) {
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
