package scenario

import (
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/internal/regularfile"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm/repair"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
	"github.com/tapeloop/tapeloop/tools"
)

// ErrWarning is what a problem Lint finds unwraps to when it does not make
// the scenario invalid (a call id reused across turns); every other
// problem Lint finds unwraps to ErrScenario. A command printing a warning
// says so (LintText).
var ErrWarning = errors.New("warning")

// LintText is how a command prints a problem Lint found: its text
// ("file:line: key: problem"), with "warning: " before the key when it is
// a warning (ErrWarning).
func LintText(p *fileerr.Error) string {
	if !errors.Is(p, ErrWarning) {
		return p.Error()
	}
	w := *p
	w.Key = strings.TrimSuffix("warning: "+p.Key, ": ")
	return w.Error()
}

// Lint checks the scenario file at path without running it and returns every
// problem it finds at once, sorted by line, each naming file, line and key:
// a tab in indentation; `final:` given as a string; a duration that is not a
// Go duration; a path in setup.workspace.files or expect.files that escapes
// the workspace; a tape calling a tool setup.tools does not set up (unless
// expect.errors expects not_found for that call); an expectation naming a
// call id, a position, a tool or a repair fix that does not exist; a position
// quoted as a string ("{turn: 1, call: 2}"); any other error Load or Validate
// reports; and, as warnings, a call id reused across the tape and a
// contains or matches of "" in expect.said or expect.final. opts.Validate,
// when set, also checks what only building the scenario shows (a tool's
// configuration, the seed tree). The scenario is nil when it did not load.
func Lint(file string, opts *LintOptions) (*Scenario, []*fileerr.Error) {
	if opts == nil {
		opts = &LintOptions{}
	}
	l := &linter{file: file}
	data, err := regularfile.Read(file, MaxScenarioSize)
	if err != nil {
		l.add(0, "", "cannot read the scenario: %v", err)
		return nil, l.problems
	}
	d := &yamlx.Decoder{File: file}
	root, err := d.Parse(data)
	if err != nil {
		// A tab is legal inside a block scalar (Go code in a file's
		// content), so tabs are looked for only when the YAML is broken.
		l.tabs(data)
		l.addErr(err)
		return nil, l.sorted()
	}
	if root != nil && root.Kind == yaml.MappingNode {
		l.nodes(root)
		l.semantics(root)
		l.expectKeys(child(root, "expect"))
	}
	s, err := Load(file)
	if err != nil {
		l.addErr(err)
		return nil, l.sorted()
	}
	l.verdicts(s, opts.Redactor)
	l.textCallFormats(s)
	if opts.Validate != nil {
		if err := opts.Validate(s); err != nil {
			l.addErr(err)
		}
	}
	return s, l.sorted()
}

// LintOptions configures Lint. A nil *LintOptions is the zero value.
type LintOptions struct {
	// Validate, when set, is called with the scenario once it loads, to find
	// what only building it shows: a tool's with: configuration, a tool
	// setup.tools names that no factory builds, an unreadable seed tree. Its
	// error ("file:line: key: problem") becomes a problem. A closure around
	// harness.Validate with your tool factories is the usual one. Nil checks
	// the file only.
	Validate func(*Scenario) error
	// Redactor is the redaction policy recorded verdicts are paired with
	// their expect.judge items by (see Scenario.MatchVerdicts), as a
	// replay under it pairs them. Nil means redact.Matches only: a rubric
	// holding a secret with characters no key holds is then warned of.
	Redactor *redact.Redactor
}

type linter struct {
	file     string
	problems []*fileerr.Error
}

func (l *linter) add(line int, key, format string, args ...any) {
	l.problems = append(l.problems, &fileerr.Error{File: l.file, Line: line, Key: key, Problem: fmt.Sprintf(format, args...), Kind: ErrScenario})
}

func (l *linter) warn(line int, key, format string, args ...any) {
	l.problems = append(l.problems, &fileerr.Error{File: l.file, Line: line, Key: key, Problem: fmt.Sprintf(format, args...), Kind: ErrWarning})
}

// addErr adds an error from Load, Parse or Validate, unless a problem on the
// same line already explains it better; it unwraps to err, and to
// ErrScenario.
func (l *linter) addErr(err error) {
	msg := err.Error()
	line := 0
	if rest, ok := strings.CutPrefix(msg, l.file+":"); ok {
		fmt.Sscanf(rest, "%d:", &line)
		if line > 0 {
			if _, after, ok := strings.Cut(rest, ": "); ok {
				msg = after
			}
		} else {
			msg = strings.TrimPrefix(rest, " ")
		}
	}
	for _, p := range l.problems {
		if line > 0 && p.Line == line {
			return
		}
	}
	if !errors.Is(err, ErrScenario) {
		err = &scenarioError{err: err} // a problem of the tape, say: it makes the scenario invalid too
	}
	l.problems = append(l.problems, &fileerr.Error{File: l.file, Line: line, Problem: msg, Kind: err})
}

func (l *linter) sorted() []*fileerr.Error {
	slices.SortStableFunc(l.problems, func(a, b *fileerr.Error) int { return a.Line - b.Line })
	return l.problems
}

// tabs reports every line indented with a tab.
func (l *linter) tabs(data []byte) {
	for i, line := range strings.Split(string(data), "\n") {
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		if strings.Contains(indent, "\t") {
			l.add(i+1, "", "a tab in indentation: YAML indents with spaces only")
		}
	}
}

// nodes checks what can be checked on the YAML alone, so that these
// mistakes are all reported even when the file does not load.
func (l *linter) nodes(root *yaml.Node) {
	setup, expect := child(root, "setup"), child(root, "expect")
	if f := child(expect, "final"); f != nil && f.Kind == yaml.ScalarNode {
		l.add(f.Line, "expect.final", "want a mapping {equals|contains|matches: TEXT}, got a string; write final: {contains: %q}", f.Value)
	}
	loop := child(setup, "loop")
	l.duration(child(loop, "tool_timeout"), "setup.loop.tool_timeout")
	l.duration(child(child(loop, "retry"), "backoff"), "setup.loop.retry.backoff")
	if ts := child(setup, "tools"); ts != nil && ts.Kind == yaml.SequenceNode {
		for _, t := range ts.Content {
			with, name := child(t, "with"), child(t, "name")
			if name == nil {
				continue
			}
			for _, key := range []string{"delay", "backoff", "timeout"} {
				l.duration(child(with, key), fmt.Sprintf("setup.tools[%s].with.%s", name.Value, key))
			}
		}
	}
	l.paths(child(child(setup, "workspace"), "files"), "setup.workspace.files")
	l.paths(child(expect, "files"), "expect.files")
	l.emptyMatchers(child(expect, "final"), "expect.final")
	if said := child(expect, "said"); said != nil && said.Kind == yaml.SequenceNode {
		for i, item := range said.Content {
			l.emptyMatchers(item, yamlx.Index("expect.said", i))
		}
	}
}

// emptyMatchers warns about a contains or matches of "" in the text
// expectation n (an item of expect.said, or expect.final): it holds for any
// text. An equals of "" expects an empty text, and is left alone.
func (l *linter) emptyMatchers(n *yaml.Node, key string) {
	for _, k := range []string{"contains", "matches"} {
		v := child(n, k)
		if v == nil || v.Kind != yaml.ScalarNode {
			continue
		}
		if tag := v.ShortTag(); tag == "!!null" || (tag == "!!str" && v.Value == "") {
			l.warn(v.Line, yamlx.Join(key, k), `"" matches every text, so this checks nothing; give the text to look for`)
		}
	}
}

// verdicts warns of each expect.judge item of a recorded scenario (its tape
// has a model entry) that has no recorded verdict, and of each recorded
// verdict no item uses: a replay fails on both until the verdicts are
// recorded again. r pairs them as a replay under that policy does.
func (l *linter) verdicts(s *Scenario, r *redact.Redactor) {
	paired, unpaired := s.MatchVerdicts(r)
	recorded := slices.ContainsFunc(s.Tape, func(e tape.Entry) bool { return e.User == nil })
	for i, j := range paired {
		if j < 0 && recorded {
			item := s.Expect.Judges[i]
			l.warn(item.Line, yamlx.Index("expect.judge", i), "no verdict recorded for this rubric in the judge: section; a replay fails until `evalrun record --mode judge` records one")
		}
	}
	for _, j := range unpaired {
		l.warn(s.Verdicts[j].Line, yamlx.Index("judge", j), "no expect.judge item uses this verdict (its rubric, on or model changed, or the item was removed); a replay fails until it is recorded again or removed")
	}
}

// expectKeys decodes each key of expect on its own, so that a key of the
// wrong shape does not hide the mistakes in the keys after it (Load stops at
// the first).
func (l *linter) expectKeys(expect *yaml.Node) {
	if expect == nil || expect.Kind != yaml.MappingNode {
		return
	}
	d := &yamlx.Decoder{File: l.file}
	for i := 0; i+1 < len(expect.Content); i += 2 {
		one := *expect
		one.Content = expect.Content[i : i+2]
		if _, err := decodeExpect(d, &one); err != nil {
			l.addErr(err)
		}
	}
}

func (l *linter) duration(n *yaml.Node, key string) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return
	}
	if _, err := time.ParseDuration(n.Value); err != nil && yamlx.DurationTooLarge(n.Value) {
		l.add(n.Line, key, "%q is too large: a duration is at most %s", n.Value, time.Duration(math.MaxInt64))
	} else if err != nil {
		l.add(n.Line, key, "%q is not a Go duration: write it with a unit, such as 100ms or 2s", n.Value)
	}
}

// paths reports each key of a mapping of workspace paths that escapes the
// workspace.
func (l *linter) paths(n *yaml.Node, key string) {
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		p := path.Clean(strings.ReplaceAll(k.Value, "\\", "/"))
		if path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") {
			l.add(k.Line, key, "%q is outside the workspace (paths are relative to it and may not leave it)", k.Value)
		}
	}
}

// tapeCall is a call the tape makes: where it is, and what the loop will
// name it.
type tapeCall struct {
	id         string // "" when the loop generates one
	name       string
	turn, call int
	line       int
}

// refOf returns the call reference a key of expect.errors or
// expect.repairs names: the id, or CallAt's text for {turn, call}.
func refOf(k *yaml.Node) string {
	if k.Kind == yaml.MappingNode {
		var tn, cn int
		if t := child(k, "turn"); t != nil {
			fmt.Sscan(t.Value, &tn)
		}
		if c := child(k, "call"); c != nil {
			fmt.Sscan(c.Value, &cn)
		}
		return CallAt(tn, cn)
	}
	return k.Value
}

// semantics checks the scenario against itself, on the YAML alone (so that
// it runs even when the file does not load): the tape's calls against
// setup.tools, and the expectations against the tape's calls, the tools and
// the repair fixes.
func (l *linter) semantics(root *yaml.Node) {
	setup, expect := child(root, "setup"), child(root, "expect")
	bridged := child(setup, "agent") != nil
	toolNames := map[string]bool{}
	var names []string
	if ts := child(setup, "tools"); ts != nil {
		for _, t := range ts.Content {
			n := t
			if t.Kind == yaml.MappingNode {
				n = child(t, "name")
			}
			if n != nil && n.Kind == yaml.ScalarNode {
				toolNames[n.Value] = true
				names = append(names, n.Value)
			}
		}
	}
	textCalls := true
	if tc := child(child(setup, "loop"), "text_calls"); tc != nil && tc.Value == "false" {
		textCalls = false
	}
	notFound := map[string]bool{} // calls expect.errors expects to be unknown tools
	if m := child(expect, "errors"); m != nil && m.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i+1].Value == string(tools.KindNotFound) {
				notFound[refOf(m.Content[i])] = true
			}
		}
	}
	have := "it sets up none"
	if len(names) > 0 {
		have = "it sets up " + strings.Join(names, ", ")
	}
	// The tape's calls, by position, with their lines.
	var calls []tapeCall
	turnCalls := map[int]int{} // turn -> structured calls; -1: may hold text calls
	turn := 0
	if tape := child(root, "tape"); tape != nil {
		for _, e := range tape.Content {
			if child(e, "user") != nil {
				continue
			}
			turn++
			resp := child(e, "response")
			tcs := child(resp, "tool_calls")
			if tcs == nil || len(tcs.Content) == 0 {
				if c := child(resp, "content"); c != nil && c.Value != "" && textCalls {
					turnCalls[turn] = -1
				}
				continue
			}
			turnCalls[turn] = len(tcs.Content)
			for j, c := range tcs.Content {
				tc := tapeCall{turn: turn, call: j + 1, line: c.Line}
				if n := child(c, "id"); n != nil {
					tc.id = n.Value
				}
				if n := child(c, "name"); n != nil {
					tc.name, tc.line = n.Value, n.Line
				}
				calls = append(calls, tc)
			}
		}
	}
	ids := map[string]int{} // explicit id -> line of its first use
	for _, c := range calls {
		if c.id == "" {
			continue
		}
		if first, dup := ids[c.id]; dup {
			l.warn(c.line, "tape", "call id %q is used again (first on line %d); name these calls by position in expectations, as %s", c.id, first, CallAt(c.turn, c.call))
			continue
		}
		ids[c.id] = c.line
	}
	for _, c := range calls {
		// A bridged scenario's agent brings its own tools.
		if bridged || toolNames[c.name] || (c.id != "" && notFound[c.id]) || notFound[CallAt(c.turn, c.call)] {
			continue
		}
		l.add(c.line, "tape", "calls tool %q, which setup.tools does not set up (%s); expect.errors: {%s: not_found} if that is the point", c.name, have, CallAt(c.turn, c.call))
	}
	if expect == nil {
		return
	}
	generated := false // the loop may name some calls call_gen_N
	for _, c := range calls {
		generated = generated || c.id == ""
	}
	for t := range turnCalls {
		generated = generated || turnCalls[t] < 0
	}
	checkRef := func(k *yaml.Node, key string) {
		ref := refOf(k)
		if k.Kind == yaml.MappingNode {
			if child(k, "turn") == nil || child(k, "call") == nil {
				return // Load reports it
			}
			tn, cn, _ := ParseCallAt(ref)
			n, known := turnCalls[tn]
			switch {
			case tn > turn:
				l.add(k.Line, key, "names %s, but the tape has %d model %s", ref, turn, plural(turn, "turn", "turns"))
			case n >= 0 && cn > n:
				l.add(k.Line, key, "names %s, but turn %d makes %d %s", ref, tn, max(n, 0), plural(max(n, 0), "call", "calls"))
			case !known:
				l.add(k.Line, key, "names %s, but turn %d makes no calls", ref, tn)
			}
			return
		}
		if msg, quoted := quotedPosition(k); quoted {
			l.add(k.Line, key, "%s", msg)
			return
		}
		if _, ok := ids[ref]; ok {
			return
		}
		if strings.HasPrefix(ref, "call_gen_") && generated {
			return
		}
		known := slices.Sorted(func(yield func(string) bool) {
			for id := range ids {
				if !yield(id) {
					return
				}
			}
		})
		if len(known) == 0 {
			l.add(k.Line, key, "names call %q, but the tape makes no call", ref)
			return
		}
		l.add(k.Line, key, "names call %q, which the tape does not make (its call ids: %s)", ref, strings.Join(known, ", "))
	}
	fixes := repair.Fixes()
	if m := child(expect, "repairs"); m != nil && m.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(m.Content); i += 2 {
			checkRef(m.Content[i], "expect.repairs")
			for _, f := range m.Content[i+1].Content {
				if !slices.Contains(fixes, f.Value) {
					l.add(f.Line, "expect.repairs", "no repair fix is named %q (the fixes: %s)", f.Value, strings.Join(fixes, ", "))
				}
			}
		}
	}
	if m := child(expect, "errors"); m != nil && m.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(m.Content); i += 2 {
			checkRef(m.Content[i], "expect.errors")
		}
	}
	// An expectation may name a tool the tape calls on purpose without
	// setting it up (to expect not_found).
	called := map[string]bool{}
	for _, c := range calls {
		called[c.name] = true
	}
	tool := func(n *yaml.Node, key string) {
		if n != nil && n.Kind == yaml.ScalarNode && !toolNames[n.Value] && !called[n.Value] {
			l.add(n.Line, key, "no tool %q in setup.tools or the tape (%s)", n.Value, have)
		}
	}
	if n := child(expect, "tool_calls"); n != nil {
		for _, c := range n.Content {
			tool(c, "expect.tool_calls")
		}
	}
	if m := child(expect, "retries"); m != nil && m.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(m.Content); i += 2 {
			tool(m.Content[i], "expect.retries")
		}
	}
	if cs := child(expect, "calls"); cs != nil {
		if only := child(cs, "only"); only != nil {
			for _, n := range only.Content {
				tool(n, "expect.calls.only")
			}
		}
		if list := child(cs, "list"); list != nil {
			for _, item := range list.Content {
				if item.Kind == yaml.ScalarNode {
					tool(item, "expect.calls.list")
				} else {
					tool(child(item, "name"), "expect.calls.list")
				}
			}
		}
	}
}
