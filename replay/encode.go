package replay

import (
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/llm"
)

// Save writes t to path as a standalone tape file (see Encode), atomically:
// it writes a temporary file in the same directory and renames it over path,
// so path holds either its old contents or the whole new tape, never a part.
func Save(path string, t *Tape) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("saving tape: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op after the rename
	if err := Encode(f, t); err != nil {
		f.Close()
		return fmt.Errorf("saving tape %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("saving tape %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("saving tape %s: %w", path, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("saving tape %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("saving tape %s: %w", path, err)
	}
	return nil
}

// Encode writes t as a standalone tape file in canonical form: `format`,
// `name` (when set) and `tape`, keys in a fixed order, empty fields left
// out, literal blocks for multi-line text, tool-call arguments always as a
// string. Decoding the output and encoding it again gives the same bytes.
// A nil t encodes as an empty tape.
func Encode(w io.Writer, t *Tape) error {
	if t == nil {
		t = &Tape{}
	}
	entries, err := EncodeEntries(t.Entries)
	if err != nil {
		return err
	}
	root := &yaml.Node{Kind: yaml.MappingNode}
	addPair(root, "format", plain(Format))
	if t.Name != "" {
		addPair(root, "name", text(t.Name))
	}
	addPair(root, "tape", entries)
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}); err != nil {
		return fmt.Errorf("encoding tape: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("encoding tape: %w", err)
	}
	return nil
}

// EncodeEntries returns the canonical `tape:` sequence node for entries, for
// embedding in a scenario file. An entry must hold exactly one of Response
// and Error, and its messages valid roles; otherwise the error wraps
// ErrFormat and names the entry. A nil or empty entries gives an empty
// sequence.
func EncodeEntries(entries []Entry) (*yaml.Node, error) {
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	if len(entries) == 0 {
		seq.Style = yaml.FlowStyle
	}
	for i, e := range entries {
		n, err := encodeEntry(e, index("tape", i))
		if err != nil {
			return nil, err
		}
		seq.Content = append(seq.Content, n)
	}
	return seq, nil
}

func encodeEntry(e Entry, path string) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	switch {
	case e.Response != nil && e.Error != "":
		return nil, &FormatError{Key: path, Problem: "both response and error (want exactly one)"}
	case e.Response != nil:
		r, err := encodeResponse(e.Response, join(path, "response"))
		if err != nil {
			return nil, err
		}
		addPair(n, "response", r)
	case e.Error != "":
		addPair(n, "error", text(e.Error))
	default:
		return nil, &FormatError{Key: path, Problem: "neither response nor error (want exactly one)"}
	}
	if e.Request != nil {
		r, err := encodeRequest(e.Request, join(path, "request"), true)
		if err != nil {
			return nil, err
		}
		addPair(n, "request", r)
	}
	return n, nil
}

func encodeResponse(r *llm.Response, path string) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	if r.Message.Content != "" {
		addPair(n, "content", text(r.Message.Content))
	}
	if len(r.Message.ToolCalls) > 0 {
		addPair(n, "tool_calls", encodeCalls(r.Message.ToolCalls))
	}
	if r.FinishReason != "" {
		addPair(n, "finish_reason", text(string(r.FinishReason)))
	}
	if r.Usage != (llm.Usage{}) {
		if r.Usage.InputTokens < 0 || r.Usage.OutputTokens < 0 {
			return nil, &FormatError{Key: join(path, "usage"), Problem: "negative token count"}
		}
		u := &yaml.Node{Kind: yaml.MappingNode}
		if r.Usage.InputTokens != 0 {
			addPair(u, "input_tokens", integer(r.Usage.InputTokens))
		}
		if r.Usage.OutputTokens != 0 {
			addPair(u, "output_tokens", integer(r.Usage.OutputTokens))
		}
		addPair(n, "usage", u)
	}
	return n, nil
}

func encodeCalls(calls []llm.ToolCall) *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, c := range calls {
		n := &yaml.Node{Kind: yaml.MappingNode}
		if c.ID != "" {
			addPair(n, "id", text(c.ID))
		}
		addPair(n, "name", text(c.Name)) // required, even when empty
		if c.Arguments != "" {
			addPair(n, "arguments", rawText(c.Arguments))
		}
		seq.Content = append(seq.Content, n)
	}
	return seq
}

// encodeRequest returns the node of s; strict rejects invalid roles, and
// is off when rendering a request for a diff.
func encodeRequest(s *RequestSummary, path string, strict bool) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	if s.Tools != nil {
		tools := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, t := range s.Tools {
			tools.Content = append(tools.Content, text(t))
		}
		addPair(n, "tools", tools)
	}
	if s.LastMessage != nil {
		m, err := encodeMessage(*s.LastMessage, join(path, "last_message"), strict)
		if err != nil {
			return nil, err
		}
		addPair(n, "last_message", m)
	}
	if s.Messages != nil {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		if len(s.Messages) == 0 {
			seq.Style = yaml.FlowStyle
		}
		for i, msg := range s.Messages {
			m, err := encodeMessage(msg, index(join(path, "messages"), i), strict)
			if err != nil {
				return nil, err
			}
			seq.Content = append(seq.Content, m)
		}
		addPair(n, "messages", seq)
	}
	return n, nil
}

func encodeMessage(m llm.Message, path string, strict bool) (*yaml.Node, error) {
	if strict && !m.Role.Valid() {
		return nil, &FormatError{Key: join(path, "role"), Problem: fmt.Sprintf("invalid role %q (want system, user, assistant, tool)", m.Role)}
	}
	n := &yaml.Node{Kind: yaml.MappingNode}
	addPair(n, "role", text(string(m.Role)))
	if m.Content != "" {
		addPair(n, "content", text(m.Content))
	}
	if len(m.ToolCalls) > 0 {
		addPair(n, "tool_calls", encodeCalls(m.ToolCalls))
	}
	if m.ToolCallID != "" {
		addPair(n, "tool_call_id", text(m.ToolCallID))
	}
	if m.Name != "" {
		addPair(n, "name", text(m.Name))
	}
	return n, nil
}

func addPair(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, plain(key), v)
}

func plain(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func integer(i int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(i)}
}

// text returns a string node that reads back as exactly s: a literal block
// for multi-line text, plain or quoted otherwise (the emitter quotes what
// would not read back as the same string), double-quoted where neither
// holds s exactly, and base64 (!!binary) for invalid UTF-8.
func text(s string) *yaml.Node {
	if n, ok := special(s); ok {
		return n
	}
	if strings.Contains(s, "\n") {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.LiteralStyle}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// rawText is text for tool-call arguments: single-quoted where possible, so
// that JSON reads as written and is never taken for a YAML mapping.
func rawText(s string) *yaml.Node {
	if n, ok := special(s); ok {
		return n
	}
	if strings.Contains(s, "\n") {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.LiteralStyle}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.SingleQuotedStyle}
}

// special handles the strings the emitter's own style choice cannot be
// trusted with: invalid UTF-8 (written as !!binary), text holding line
// breaks other than \n, and multi-line text starting with a tab (both
// written double-quoted, with escapes).
func special(s string) (*yaml.Node, bool) {
	if !utf8.ValidString(s) {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!binary", Value: base64.StdEncoding.EncodeToString([]byte(s))}, true
	}
	// A literal block whose first line starts with a tab has no indentation
	// indicator, and the parser cannot tell the tab from indentation.
	if strings.ContainsAny(s, "\r\u0085\u2028\u2029") || strings.HasPrefix(s, "\t") && strings.Contains(s, "\n") {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}, true
	}
	return nil, false
}
