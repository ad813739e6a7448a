package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/internal/atomicfile"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

// ErrEdit is wrapped by every error SetTape, AppendTape, SetValue and
// WriteTape return when a scenario file cannot be edited in place: it is not
// a YAML mapping, or the edit would change something besides the value it
// replaces.
var ErrEdit = errors.New("cannot edit the scenario file")

// ErrUnreadable is wrapped by the error CheckReadable returns: the text
// would make a scenario file that Load refuses, so it is not written.
var ErrUnreadable = errors.New("refusing to write a scenario file that would not read back")

// CheckReadable reports why data, the new text of the scenario file at
// path, would not load again: larger than MaxScenarioSize, or refused by
// Parse. A command that writes a scenario (record, rebase, save-trials)
// calls it before writing, so that it never leaves a file later commands
// refuse. The error wraps ErrUnreadable and says why; nil means it loads.
func CheckReadable(path string, data []byte) error {
	if len(data) > MaxScenarioSize {
		return fmt.Errorf("%s: %w: it would be %.1f MiB, more than the %d MiB a scenario may have (record fewer or shorter calls, or keep large content in setup.workspace files)",
			path, ErrUnreadable, float64(len(data))/(1<<20), MaxScenarioSize>>20)
	}
	if _, err := Parse(data, path, DefaultName(path)); err != nil {
		return fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	return nil
}

// WriteFile writes data over the scenario file at path atomically (a
// reader sees the old file or the new one, never a part) once
// CheckReadable passes it; otherwise the file is left as it was and the
// error says why.
func WriteFile(path string, data []byte) error {
	if err := CheckReadable(path, data); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data)
}

// SetTape returns src, the bytes of a scenario file, with the value of its
// top-level `tape:` key replaced by entries written canonically (see
// tape.EncodeEntries). Everything else stays byte for byte as the author
// wrote it: comments, blank lines, key order, quoting, `expect:`. A file
// without a `tape:` key gets one after `input:` (or the last key that comes
// before `tape` in the format's order). file names src in errors; empty means
// unknown. src is not changed.
//
// The edit is checked by parsing the result: when the tape does not read
// back as entries or any other part of the document changed, the error wraps
// ErrEdit and nothing is returned.
func SetTape(src []byte, file string, entries []tape.Entry) ([]byte, error) {
	if n := textLen(entries); n > MaxScenarioSize {
		// Refused before encoding: the text alone passes the limit, and
		// encoding it would cost far more than saying so.
		return nil, fmt.Errorf("%s: %w: its tape alone would be more than %.1f MiB, more than the %d MiB a scenario may have (record fewer or shorter calls, or keep large content in setup.workspace files)",
			file, ErrUnreadable, float64(n)/(1<<20), MaxScenarioSize>>20)
	}
	seq, err := tape.EncodeEntries(entries)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding the tape: %w", file, err)
	}
	return SetValue(src, file, []string{"tape"}, seq)
}

// AppendTape returns src with entries added at the end of its `tape:`,
// keeping the existing entries as written (their comments included); it is
// SetTape when the tape is missing, empty or written in flow style. It
// checks the result as SetTape does.
func AppendTape(src []byte, file string, entries []tape.Entry) ([]byte, error) {
	if len(entries) == 0 {
		return bytes.Clone(src), nil
	}
	doc, err := parseForEdit(src, file)
	if err != nil {
		return nil, err
	}
	_, old := lookup(doc.Content[0], "tape")
	// rewrite writes the old entries and the new ones canonically.
	rewrite := func() ([]byte, error) {
		var all []tape.Entry
		if old != nil {
			if all, err = tape.DecodeEntries(file, old); err != nil {
				return nil, err
			}
		}
		return SetTape(src, file, append(all, entries...))
	}
	if old == nil || old.Kind != yaml.SequenceNode || old.Style&yaml.FlowStyle != 0 || len(old.Content) == 0 {
		return rewrite()
	}
	seq, err := tape.EncodeEntries(entries)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding the tape: %w", file, err)
	}
	lines := splitLines(src)
	first := old.Content[0]
	col, err := lineColumn(lines, first.Line, first.Column)
	if err != nil {
		return nil, editErrorf(file, first.Line, "tape", "%v", err)
	}
	// The item's "- " starts two columns before its content.
	col -= 2
	if col < 0 || !strings.HasPrefix(string(lines[first.Line-1][col:]), "- ") {
		return rewrite() // not a plain block sequence
	}
	end := valueEnd(lines, first.Line, col, true)
	text, err := marshalNode(seq)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding the tape: %w", file, err)
	}
	// marshalNode writes the items at column 0; move them under the others.
	block := indent(text, strings.Repeat(" ", col), true)
	at := lineOffset(lines, end)
	out := slices.Concat(src[:at], ensureNewline(src[:at]), []byte(block), src[at:])
	want := slices.Clone(old.Content)
	want = append(want, seq.Content...)
	wantNode := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: want}
	if err := checkEdit(src, out, file, []string{"tape"}, wantNode); err != nil {
		return nil, err
	}
	return out, nil
}

// WriteTape replaces the tape of the scenario file at path with entries (see
// SetTape) and writes the file atomically: a reader sees the old file or the
// new one, never a part.
func WriteTape(path string, entries []tape.Entry) error {
	return editFile(path, func(src []byte) ([]byte, error) { return SetTape(src, path, entries) })
}

// editFile reads the scenario at path, applies edit and writes the result
// atomically, unless it is unchanged.
func editFile(path string, edit func([]byte) ([]byte, error)) error {
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("editing scenario: %w", err)
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("editing scenario %s: %w: not a regular file", path, ErrEdit)
	}
	if info.Size() > MaxScenarioSize {
		return fmt.Errorf("editing scenario %s: %w: %d bytes is more than the %d a scenario may have", path, ErrEdit, info.Size(), MaxScenarioSize)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("editing scenario: %w", err)
	}
	out, err := edit(src)
	if err != nil {
		return err
	}
	if bytes.Equal(out, src) {
		return nil
	}
	return WriteFile(path, out)
}

// textLen is a lower bound on the bytes entries take in a file: the
// length of the texts they hold, each written at least once.
func textLen(entries []tape.Entry) int {
	n := 0
	msg := func(m *llm.Message) {
		if m == nil {
			return
		}
		n += len(m.Content)
		for _, c := range m.ToolCalls {
			n += len(c.ID) + len(c.Name) + len(c.Arguments)
		}
	}
	for i := range entries {
		e := &entries[i]
		n += len(e.Error)
		if e.Response != nil {
			msg(&e.Response.Message)
		}
		msg(e.User)
		if r := e.Request; r != nil {
			msg(r.LastMessage)
			for j := range r.New {
				msg(&r.New[j])
			}
			for j := range r.Messages {
				msg(&r.Messages[j])
			}
		}
	}
	return n
}

// SetValue returns src with the value at path (a chain of mapping keys from
// the top of the document, like ["setup", "tools"], where a decimal number
// picks an item of a sequence: ["tape", "2", "request"]) replaced by value,
// keeping the rest of the file byte for byte. A missing last key is added to its
// mapping (a missing top-level key in the format's key order); a missing
// parent is an error. The result is checked as SetTape's is.
func SetValue(src []byte, file string, path []string, value *yaml.Node) ([]byte, error) {
	if len(path) == 0 {
		return nil, editErrorf(file, 0, "", "no key to set")
	}
	doc, err := parseForEdit(src, file)
	if err != nil {
		return nil, err
	}
	keyPath := strings.Join(path, ".")
	parent := doc.Content[0]
	for i, k := range path[:len(path)-1] {
		v := child(parent, k)
		if v == nil || v.Kind != yaml.MappingNode && (i == len(path)-2 || v.Kind != yaml.SequenceNode) {
			return nil, editErrorf(file, parent.Line, strings.Join(path[:i+1], "."), "missing or not a mapping")
		}
		if v.Style&yaml.FlowStyle != 0 && parent.Kind == yaml.MappingNode {
			// A flow collection ({...}, [...]) on the way, the value of a
			// block mapping's key: set the value in its nodes and write
			// the collection anew in its place, still in flow style.
			if err := setIn(v, path[i+1:], value); err != nil {
				return nil, editErrorf(file, v.Line, keyPath, "%v", err)
			}
			return SetValue(src, file, path[:i+1], v)
		}
		parent = v
	}
	if parent.Style&yaml.FlowStyle != 0 {
		return nil, editErrorf(file, parent.Line, keyPath, "its mapping is in flow style ({...}); write it as a block to edit it in place")
	}
	last := path[len(path)-1]
	lines := splitLines(src)
	text, err := marshalNode(yamlx.Add(yamlx.Map(), last, value))
	if err != nil {
		return nil, fmt.Errorf("%s: encoding %s: %w", file, keyPath, err)
	}
	var out []byte
	if k, v := lookup(parent, last); k != nil {
		col, err := lineColumn(lines, k.Line, k.Column)
		if err != nil {
			return nil, editErrorf(file, k.Line, keyPath, "%v", err)
		}
		start := lineOffset(lines, k.Line-1) + col
		// The value ends where the lines indented deeper than the key end:
		// a scalar on the key's line may go on over the next lines too.
		end := lineOffset(lines, valueEnd(lines, k.Line, col, v.Kind == yaml.SequenceNode))
		block := indent(text, strings.Repeat(" ", col), false)
		if end == len(src) && !bytes.HasSuffix(src, []byte("\n")) {
			block = strings.TrimSuffix(block, "\n")
		}
		out = slices.Concat(src[:start], []byte(block), src[end:])
	} else {
		at, col, blank, err := insertionPoint(lines, src, parent, path)
		if err != nil {
			return nil, editErrorf(file, parent.Line, keyPath, "%v", err)
		}
		block := indent(text, strings.Repeat(" ", col), true)
		var sep []byte
		if blank {
			sep = []byte("\n")
		}
		out = slices.Concat(src[:at], ensureNewline(src[:at]), sep, []byte(block), src[at:])
	}
	if err := checkEdit(src, out, file, path, value); err != nil {
		return nil, err
	}
	return out, nil
}

// setIn sets the value at path inside the node tree n: a missing last key
// is added to its mapping.
func setIn(n *yaml.Node, path []string, value *yaml.Node) error {
	for i, k := range path[:len(path)-1] {
		v := child(n, k)
		if v == nil || v.Kind != yaml.MappingNode && v.Kind != yaml.SequenceNode {
			return fmt.Errorf("%s: missing or not a mapping", strings.Join(path[:i+1], "."))
		}
		n = v
	}
	last := path[len(path)-1]
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: its parent is not a mapping", last)
	}
	if _, v := lookup(n, last); v != nil {
		*v = *value
		return nil
	}
	yamlx.Add(n, last, value)
	return nil
}

// parseForEdit parses src, which must be one YAML document whose top is a
// block mapping.
func parseForEdit(src []byte, file string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, editErrorf(file, 0, "", "%v", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, editErrorf(file, doc.Line, "", "the file is not a YAML mapping")
	}
	if doc.Content[0].Style&yaml.FlowStyle != 0 {
		return nil, editErrorf(file, doc.Content[0].Line, "", "the file is one flow mapping ({...}); write it as a block to edit it in place")
	}
	return &doc, nil
}

func editErrorf(file string, line int, key, format string, args ...any) error {
	e := &fileerr.Error{Kind: yamlx.ErrFormat, File: file, Line: line, Key: key, Problem: fmt.Sprintf(format, args...)}
	return fmt.Errorf("%w: %s", ErrEdit, e.Error())
}

// lookup returns the key and value nodes of key in mapping m, or nils.
func lookup(m *yaml.Node, key string) (k, v *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// child returns the value of key in mapping n, or the item of sequence n
// whose index key is; nil when there is none.
func child(n *yaml.Node, key string) *yaml.Node {
	if n != nil && n.Kind == yaml.SequenceNode {
		i, err := strconv.Atoi(key)
		if err != nil || i < 0 || i >= len(n.Content) {
			return nil
		}
		return n.Content[i]
	}
	_, v := lookup(n, key)
	return v
}

// splitLines returns src's lines, each with its line break.
func splitLines(src []byte) [][]byte {
	return bytes.SplitAfter(src, []byte("\n"))
}

// lineOffset returns the offset in src of the start of line n (0-based); n
// past the end gives the length of src.
func lineOffset(lines [][]byte, n int) int {
	off := 0
	for i := 0; i < n && i < len(lines); i++ {
		off += len(lines[i])
	}
	return off
}

// lineColumn returns the byte offset within line (1-based) of the 1-based
// character column col, checking that only spaces and "- " come before it.
func lineColumn(lines [][]byte, line, col int) (int, error) {
	if line < 1 || line > len(lines) {
		return 0, fmt.Errorf("line %d is outside the file", line)
	}
	l := lines[line-1]
	off := 0
	for range col - 1 {
		if off >= len(l) {
			return 0, fmt.Errorf("column %d is outside line %d", col, line)
		}
		_, size := utf8.DecodeRune(l[off:])
		off += size
	}
	if strings.Trim(string(l[:off]), " -") != "" {
		return 0, fmt.Errorf("the key does not start its line")
	}
	return off, nil
}

// valueEnd returns the 0-based line index just past the value of the key on
// 1-based line keyLine at byte column col: the value holds the lines indented
// deeper than col (and, for a sequence, "- " items at col), with the blank
// and comment lines between them. Blank and comment lines after its last line
// belong to what follows.
func valueEnd(lines [][]byte, keyLine, col int, sequence bool) int {
	end := keyLine
	for i := keyLine; i < len(lines); i++ {
		l := strings.TrimRight(string(lines[i]), "\r\n")
		trimmed := strings.TrimLeft(l, " ")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		ind := len(l) - len(trimmed)
		if ind > col || sequence && ind == col && (trimmed == "-" || strings.HasPrefix(trimmed, "- ")) {
			end = i + 1
			continue
		}
		break
	}
	return end
}

// insertionPoint finds where a missing last key of path goes in parent: after
// the value of the last key that precedes it in the format's order (for a
// top-level key) or after the last key of parent. It returns the offset, the
// column and whether a blank line should separate it (as the file separates
// its top-level keys).
func insertionPoint(lines [][]byte, src []byte, parent *yaml.Node, path []string) (at, col int, blank bool, err error) {
	if len(parent.Content) == 0 {
		return 0, 0, false, errors.New("the mapping is empty")
	}
	after := parent.Content[len(parent.Content)-2]
	if len(path) == 1 {
		rank := slices.Index(topKeys, path[0])
		for i := 0; i+1 < len(parent.Content); i += 2 {
			if r := slices.Index(topKeys, parent.Content[i].Value); r >= 0 && r < rank {
				after = parent.Content[i]
			}
		}
	}
	if col, err = lineColumn(lines, after.Line, after.Column); err != nil {
		return 0, 0, false, err
	}
	_, v := lookup(parent, after.Value)
	end := valueEnd(lines, after.Line, col, v != nil && v.Kind == yaml.SequenceNode)
	blank = len(path) == 1 && end < len(lines) && strings.TrimSpace(string(lines[end])) == ""
	return lineOffset(lines, end), col, blank, nil
}

// marshalNode writes n as canonical YAML (see yamlx.Marshal).
func marshalNode(n *yaml.Node) (string, error) {
	b, err := yamlx.Marshal(n)
	return string(b), err
}

// indent prefixes every non-empty line of text with pad, the first line too
// when first is set.
func indent(text, pad string, first bool) string {
	if pad == "" {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if l == "" || l == "\n" || i == 0 && !first {
			continue
		}
		lines[i] = pad + l
	}
	return strings.Join(lines, "")
}

// ensureNewline returns a line break when prefix does not end with one.
func ensureNewline(prefix []byte) []byte {
	if len(prefix) == 0 || bytes.HasSuffix(prefix, []byte("\n")) {
		return nil
	}
	return []byte("\n")
}

// checkEdit parses out and compares it with src: the value at path must equal
// want and everything else must be unchanged.
func checkEdit(src, out []byte, file string, path []string, want *yaml.Node) error {
	before, err := parseForEdit(src, file)
	if err != nil {
		return err
	}
	keyPath := strings.Join(path, ".")
	var after yaml.Node
	if err := yaml.Unmarshal(out, &after); err != nil || after.Kind != yaml.DocumentNode || len(after.Content) != 1 {
		return fmt.Errorf("%w: %s: writing %s in place would give a file that does not parse (%v)", ErrEdit, file, keyPath, err)
	}
	// Put want in place in the old tree; the trees must then be equal.
	m := before.Content[0]
	for _, k := range path[:len(path)-1] {
		m = child(m, k)
	}
	if _, v := lookup(m, path[len(path)-1]); v != nil {
		for i := 1; i < len(m.Content); i += 2 {
			if m.Content[i] == v {
				m.Content[i] = want
			}
		}
	} else {
		yamlx.Add(m, path[len(path)-1], want)
	}
	if !sameTree(before.Content[0], after.Content[0], true) {
		return fmt.Errorf("%w: %s: writing %s in place would change other parts of the file", ErrEdit, file, keyPath)
	}
	return nil
}

// sameTree reports whether a and b hold the same data; keys of a top-level
// mapping may come in any order when anyOrder is set (an inserted key).
func sameTree(a, b *yaml.Node, anyOrder bool) bool {
	a, b = resolve(a), resolve(b)
	if a.Kind != b.Kind || len(a.Content) != len(b.Content) {
		return false
	}
	if a.Kind == yaml.ScalarNode {
		return a.Value == b.Value && a.ShortTag() == b.ShortTag()
	}
	if a.Kind == yaml.MappingNode && anyOrder {
		for i := 0; i+1 < len(a.Content); i += 2 {
			k, v := lookup(b, a.Content[i].Value)
			if k == nil || !sameTree(a.Content[i+1], v, false) {
				return false
			}
		}
		return true
	}
	for i := range a.Content {
		if !sameTree(a.Content[i], b.Content[i], false) {
			return false
		}
	}
	return true
}

func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}
