package replay

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/llm"
)

// The keys each mapping of a tape may hold, in canonical order.
var (
	fileKeys     = []string{"format", "name", "tape"}
	entryKeys    = []string{"response", "error", "request"}
	responseKeys = []string{"content", "tool_calls", "finish_reason", "usage"}
	callKeys     = []string{"id", "name", "arguments"}
	usageKeys    = []string{"input_tokens", "output_tokens"}
	requestKeys  = []string{"tools", "last_message", "messages"}
	messageKeys  = []string{"role", "content", "tool_calls", "tool_call_id", "name"}
)

// Load reads the standalone tape file at path (see Decode).
func Load(path string) (*Tape, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("loading tape: %w", err)
	}
	defer f.Close()
	return Decode(f, path)
}

// Decode reads a standalone tape file: a mapping with `format: tapeloop/v1`,
// an optional `name` and the `tape` sequence. Filename is used in error
// messages and recorded as the tape's File; empty means unknown. Every error
// about the contents wraps ErrFormat and names the file, line and key; input
// larger than MaxFileSize is refused.
func Decode(r io.Reader, filename string) (*Tape, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading tape %s: %w", filename, err)
	}
	if len(data) > MaxFileSize {
		return nil, &FormatError{File: filename, Problem: fmt.Sprintf("file is larger than %d MiB; refusing to decode it", MaxFileSize>>20)}
	}
	return decodeBytes(data, filename)
}

func decodeBytes(data []byte, filename string) (t *Tape, err error) {
	d := &decoder{file: filename}
	defer func() {
		// yaml.v3 recovers its own panics; this guards against any left.
		if r := recover(); r != nil {
			t, err = nil, &FormatError{File: filename, Problem: fmt.Sprintf("cannot decode: %v", r)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &FormatError{File: filename, Problem: "empty file (want format: " + Format + " and tape: [...])"}
		}
		return nil, d.yamlError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, d.yamlError(err)
		}
		return nil, d.errf(&extra, "", "more than one YAML document (want one)")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, d.errf(root, "", "empty file (want format: %s and tape: [...])", Format)
	}
	if err := d.want(root, "", yaml.MappingNode); err != nil {
		return nil, err
	}
	t = &Tape{File: filename}
	var format, tape *yaml.Node
	seen, err := d.fields(root, "", fileKeys, func(key string, k, v *yaml.Node) error {
		var err error
		switch key {
		case "format":
			format = v
		case "name":
			t.Name, err = d.str(v, "name")
		case "tape":
			tape = v
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !seen["format"] {
		return nil, d.errf(root, "", "missing required key %q (want format: %s)", "format", Format)
	}
	f, err := d.str(format, "format")
	if err != nil {
		return nil, err
	}
	if f != Format {
		return nil, d.errf(format, "format", "unsupported format %q (want %s)", f, Format)
	}
	if !seen["tape"] {
		return nil, d.errf(root, "", "missing required key %q", "tape")
	}
	if t.Entries, err = d.entries(tape); err != nil {
		return nil, err
	}
	return t, nil
}

// DecodeEntries decodes the `tape:` sequence node of a scenario file, with
// the same strictness as Decode. Filename is used in error messages; lines
// are those of node and so relative to the file it was parsed from. A nil
// node is an error; an empty sequence gives no entries.
func DecodeEntries(filename string, node *yaml.Node) (entries []Entry, err error) {
	d := &decoder{file: filename}
	if node == nil {
		return nil, &FormatError{File: filename, Key: "tape", Problem: "missing (want a sequence of entries)"}
	}
	if node.Kind == yaml.DocumentNode && len(node.Content) == 1 {
		node = node.Content[0]
	}
	return d.entries(node)
}

// decoder walks yaml.v3 nodes, so that every error carries file and line.
type decoder struct {
	file string
}

func (d *decoder) errf(n *yaml.Node, key, format string, args ...any) error {
	e := &FormatError{File: d.file, Key: key, Problem: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line = n.Line
	}
	return e
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlError turns a yaml.v3 syntax error into a FormatError.
func (d *decoder) yamlError(err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &FormatError{File: d.file, Line: line, Problem: "invalid YAML: " + m[2]}
	}
	return &FormatError{File: d.file, Problem: "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// describe names the kind of value n holds, for "want X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	}
	v := n.Value
	if len(v) > 40 {
		v = v[:40] + "..."
	}
	switch n.ShortTag() {
	case "!!null":
		return "null"
	case "!!int":
		return "an integer (" + v + ")"
	case "!!float":
		return "a number (" + v + ")"
	case "!!bool":
		return "a boolean (" + v + ")"
	case "!!timestamp":
		return "a timestamp (" + v + ")"
	case "!!str":
		return fmt.Sprintf("a string (%q)", v)
	}
	return "a value tagged " + n.ShortTag()
}

var kindNames = map[yaml.Kind]string{
	yaml.MappingNode:  "a mapping",
	yaml.SequenceNode: "a sequence",
	yaml.ScalarNode:   "a scalar",
}

// want checks that n is of the given kind and not an alias.
func (d *decoder) want(n *yaml.Node, key string, kind yaml.Kind) error {
	if n.Kind == yaml.AliasNode {
		return d.errf(n, key, "aliases are not supported in a tape (write the value out)")
	}
	if n.Kind != kind {
		return d.errf(n, key, "want %s, got %s", kindNames[kind], describe(n))
	}
	return nil
}

// fields calls fn for each key of mapping n in document order, rejecting a
// non-scalar key, an unknown key and a duplicate. It returns the keys seen.
func (d *decoder) fields(n *yaml.Node, path string, allowed []string, fn func(key string, k, v *yaml.Node) error) (map[string]bool, error) {
	if err := d.want(n, path, yaml.MappingNode); err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(allowed))
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, d.errf(k, path, "want a plain key, got %s (want %s)", describe(k), strings.Join(allowed, ", "))
		}
		key := k.Value
		known := false
		for _, a := range allowed {
			if a == key {
				known = true
				break
			}
		}
		if !known {
			return nil, d.errf(k, path, "unknown key %q (want %s)", key, strings.Join(allowed, ", "))
		}
		if seen[key] {
			return nil, d.errf(k, path, "duplicate key %q", key)
		}
		seen[key] = true
		if err := fn(key, k, v); err != nil {
			return nil, err
		}
	}
	return seen, nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// str decodes a string: a !!str scalar, a !!binary scalar (base64) or null
// (the empty string).
func (d *decoder) str(n *yaml.Node, path string) (string, error) {
	if err := d.want(n, path, yaml.ScalarNode); err != nil {
		if n.Kind != yaml.AliasNode {
			return "", d.errf(n, path, "want a string, got %s", describe(n))
		}
		return "", err
	}
	switch n.ShortTag() {
	case "!!str":
		return n.Value, nil
	case "!!null":
		return "", nil
	case "!!binary":
		b, err := base64.StdEncoding.DecodeString(strings.Map(dropSpace, n.Value))
		if err != nil {
			return "", d.errf(n, path, "invalid !!binary value: %v", err)
		}
		return string(b), nil
	}
	return "", d.errf(n, path, "want a string, got %s; quote it", describe(n))
}

func dropSpace(r rune) rune {
	switch r {
	case ' ', '\t', '\n', '\r':
		return -1
	}
	return r
}

// count decodes a non-negative integer.
func (d *decoder) count(n *yaml.Node, path string) (int, error) {
	if err := d.want(n, path, yaml.ScalarNode); err != nil {
		return 0, err
	}
	if n.ShortTag() != "!!int" {
		return 0, d.errf(n, path, "want an integer, got %s", describe(n))
	}
	v, err := strconv.ParseInt(n.Value, 0, 0)
	if err != nil {
		return 0, d.errf(n, path, "integer %s out of range", n.Value)
	}
	if v < 0 {
		return 0, d.errf(n, path, "want a non-negative integer, got %d", v)
	}
	return int(v), nil
}

// strs decodes a sequence of strings; it is never nil.
func (d *decoder) strs(n *yaml.Node, path string) ([]string, error) {
	if err := d.want(n, path, yaml.SequenceNode); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(n.Content))
	for i, c := range n.Content {
		s, err := d.str(c, index(path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (d *decoder) entries(n *yaml.Node) ([]Entry, error) {
	if err := d.want(n, "tape", yaml.SequenceNode); err != nil {
		return nil, err
	}
	entries := make([]Entry, 0, len(n.Content))
	for i, c := range n.Content {
		e, err := d.entry(c, index("tape", i))
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	return entries, nil
}

func (d *decoder) entry(n *yaml.Node, path string) (Entry, error) {
	e := Entry{Line: n.Line}
	var errNode *yaml.Node
	seen, err := d.fields(n, path, entryKeys, func(key string, k, v *yaml.Node) error {
		var err error
		switch key {
		case "response":
			e.Response, err = d.response(v, join(path, key))
		case "error":
			errNode = v
			e.Error, err = d.str(v, join(path, key))
		case "request":
			e.Request, err = d.request(v, join(path, key))
		}
		return err
	})
	if err != nil {
		return Entry{}, err
	}
	switch {
	case seen["response"] && seen["error"]:
		return Entry{}, d.errf(n, path, "both response and error (want exactly one)")
	case !seen["response"] && !seen["error"]:
		return Entry{}, d.errf(n, path, "missing required key %q (or %q)", "response", "error")
	case seen["error"] && e.Error == "":
		return Entry{}, d.errf(errNode, join(path, "error"), "empty error text")
	}
	return e, nil
}

func (d *decoder) response(n *yaml.Node, path string) (*llm.Response, error) {
	r := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}}
	_, err := d.fields(n, path, responseKeys, func(key string, k, v *yaml.Node) error {
		var err error
		p := join(path, key)
		switch key {
		case "content":
			r.Message.Content, err = d.str(v, p)
		case "tool_calls":
			r.Message.ToolCalls, err = d.calls(v, p)
		case "finish_reason":
			var s string
			s, err = d.str(v, p)
			r.FinishReason = llm.FinishReason(s)
		case "usage":
			r.Usage, err = d.usage(v, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (d *decoder) usage(n *yaml.Node, path string) (llm.Usage, error) {
	var u llm.Usage
	_, err := d.fields(n, path, usageKeys, func(key string, k, v *yaml.Node) error {
		var err error
		switch key {
		case "input_tokens":
			u.InputTokens, err = d.count(v, join(path, key))
		case "output_tokens":
			u.OutputTokens, err = d.count(v, join(path, key))
		}
		return err
	})
	return u, err
}

// calls decodes a tool_calls sequence; an empty sequence gives nil.
func (d *decoder) calls(n *yaml.Node, path string) ([]llm.ToolCall, error) {
	if err := d.want(n, path, yaml.SequenceNode); err != nil {
		return nil, err
	}
	var calls []llm.ToolCall
	for i, c := range n.Content {
		p := index(path, i)
		var tc llm.ToolCall
		seen, err := d.fields(c, p, callKeys, func(key string, k, v *yaml.Node) error {
			var err error
			switch key {
			case "id":
				tc.ID, err = d.str(v, join(p, key))
			case "name":
				tc.Name, err = d.str(v, join(p, key))
			case "arguments":
				tc.Arguments, err = d.arguments(v, join(p, key))
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if !seen["name"] {
			return nil, d.errf(c, p, "missing required key %q", "name")
		}
		calls = append(calls, tc)
	}
	return calls, nil
}

func (d *decoder) request(n *yaml.Node, path string) (*RequestSummary, error) {
	s := &RequestSummary{}
	_, err := d.fields(n, path, requestKeys, func(key string, k, v *yaml.Node) error {
		var err error
		p := join(path, key)
		switch key {
		case "tools":
			s.Tools, err = d.strs(v, p)
		case "last_message":
			var m llm.Message
			m, err = d.message(v, p)
			s.LastMessage = &m
		case "messages":
			if err = d.want(v, p, yaml.SequenceNode); err != nil {
				return err
			}
			s.Messages = make([]llm.Message, 0, len(v.Content))
			for i, c := range v.Content {
				m, err := d.message(c, index(p, i))
				if err != nil {
					return err
				}
				s.Messages = append(s.Messages, m)
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (d *decoder) message(n *yaml.Node, path string) (llm.Message, error) {
	var m llm.Message
	var roleNode *yaml.Node
	seen, err := d.fields(n, path, messageKeys, func(key string, k, v *yaml.Node) error {
		var err error
		p := join(path, key)
		switch key {
		case "role":
			roleNode = v
			var s string
			s, err = d.str(v, p)
			m.Role = llm.Role(s)
		case "content":
			m.Content, err = d.str(v, p)
		case "tool_calls":
			m.ToolCalls, err = d.calls(v, p)
		case "tool_call_id":
			m.ToolCallID, err = d.str(v, p)
		case "name":
			m.Name, err = d.str(v, p)
		}
		return err
	})
	if err != nil {
		return llm.Message{}, err
	}
	if !seen["role"] {
		return llm.Message{}, d.errf(n, path, "missing required key %q", "role")
	}
	if !m.Role.Valid() {
		return llm.Message{}, d.errf(roleNode, join(path, "role"), "invalid role %q (want system, user, assistant, tool)", m.Role)
	}
	return m, nil
}
