package tape

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
)

// The keys each mapping of a tape may hold, in canonical order.
var (
	fileKeys     = []string{"format", "name", "offered", "tape", "judge"}
	entryKeys    = []string{"response", "error", "user", "request"}
	userKeys     = []string{"content", "name"}
	responseKeys = []string{"reasoning", "content", "tool_calls", "finish_reason", "usage"}
	callKeys     = []string{"id", "name", "arguments", "signature"}
	usageKeys    = []string{"input_tokens", "output_tokens", "cached_input_tokens", "cache_write_tokens", "reasoning_tokens"}
	requestKeys  = []string{"offered", "new", "tools", "last_message", "messages"}
	messageKeys  = []string{"role", "reasoning", "content", "tool_calls", "tool_call_id", "name", "is_error"}
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
// an optional `name`, an optional `offered` block, the `tape` sequence and
// an optional `judge` section (DecodeVerdicts). Filename is used in error
// messages and recorded as the tape's File; empty means unknown. Every error
// about the contents wraps ErrFormat and names the file, line and key; input
// larger than MaxFileSize is refused.
func Decode(r io.Reader, filename string) (*Tape, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading tape %s: %w", filename, err)
	}
	if len(data) > MaxFileSize {
		return nil, &fileerr.Error{Kind: ErrFormat, File: filename, Problem: fmt.Sprintf("file is larger than %d MiB; refusing to decode it", MaxFileSize>>20)}
	}
	return decodeBytes(data, filename)
}

func decodeBytes(data []byte, filename string) (t *Tape, err error) {
	d := newDecoder(filename)
	defer func() {
		// yaml.v3 recovers its own panics; this guards against any left.
		if r := recover(); r != nil {
			t, err = nil, &fileerr.Error{Kind: ErrFormat, File: filename, Problem: fmt.Sprintf("cannot decode: %v", r)}
		}
		err = formatError(err)
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &fileerr.Error{Kind: ErrFormat, File: filename, Problem: "empty file (want format: " + Format + " and tape: [...])"}
		}
		return nil, d.SyntaxError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, d.SyntaxError(err)
		}
		return nil, d.Errf(&extra, "", "more than one YAML document (want one)")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, d.Errf(root, "", "empty file (want format: %s and tape: [...])", Format)
	}
	if err := d.Want(root, "", yaml.MappingNode); err != nil {
		return nil, err
	}
	t = &Tape{File: filename}
	var format, tape *yaml.Node
	seen, err := d.Fields(root, "", fileKeys, func(key string, v *yaml.Node) error {
		var err error
		switch key {
		case "format":
			format = v
		case "name":
			t.Name, err = d.Str(v, "name")
		case "offered":
			t.Offered, err = d.offered(v, "offered")
		case "tape":
			tape = v
		case "judge":
			t.Verdicts, err = d.verdicts(v)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !seen.Has("format") {
		return nil, d.Errf(root, "", "missing required key %q (want format: %s)", "format", Format)
	}
	f, err := d.Str(format, "format")
	if err != nil {
		return nil, err
	}
	if f != Format {
		return nil, d.Errf(format, "format", "unsupported format %q (want %s)", f, Format)
	}
	if !seen.Has("tape") {
		return nil, d.Errf(root, "", "missing required key %q", "tape")
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
	if node == nil {
		return nil, &fileerr.Error{Kind: ErrFormat, File: filename, Key: "tape", Problem: "missing (want a sequence of entries)"}
	}
	if node.Kind == yaml.DocumentNode && len(node.Content) == 1 {
		node = node.Content[0]
	}
	entries, err = newDecoder(filename).entries(node)
	return entries, formatError(err)
}

// DecodeEntry decodes item i of a scenario file's `tape:` sequence, as
// DecodeEntries does each, for a caller that parses the items one at a time.
func DecodeEntry(filename string, i int, node *yaml.Node) (Entry, error) {
	e, err := newDecoder(filename).EntryAt(node, i)
	return e, formatError(err)
}

// decoder walks yaml.v3 nodes, so that every error carries file and line.
// Its errors are *fileerr.Error; the exported functions make them of kind
// ErrFormat (see formatError).
type decoder struct {
	yamlx.Decoder
	// pathless leaves the keys of the values decoded out of their errors
	// (join and index give ""), so that a valid entry builds none of the
	// strings only an error needs. Only entryAt sets it, and decodes again
	// with keys to report an error.
	pathless bool
	// names holds the tool names decoded so far, each once: a long tape
	// names the same few tools thousands of times, and each call keeps
	// its name (see name). newDecoder makes it.
	names map[string]string
}

// maxNames bounds decoder.names: a tape naming more tools than that keeps
// the names past it as decoded.
const maxNames = 256

// name returns s, or the equal name decoded before it, so that a tape's
// calls of one tool share one string.
func (d *decoder) name(s string) string {
	if v, ok := d.names[s]; ok {
		return v
	}
	if d.names != nil && len(d.names) < maxNames {
		d.names[s] = s
	}
	return s
}

// join is yamlx.Join, or "" when d is pathless.
func (d *decoder) join(path, key string) string {
	if d.pathless {
		return ""
	}
	return yamlx.Join(path, key)
}

// index is yamlx.Index, or "" when d is pathless.
func (d *decoder) index(path string, i int) string {
	if d.pathless {
		return ""
	}
	return yamlx.Index(path, i)
}

// entryAt decodes item i of the tape. Decoding is a function of the node
// alone, so it decodes without keys first and, only for an entry that
// fails, again with them: the same error, with its key.
func (d *decoder) EntryAt(n *yaml.Node, i int) (Entry, error) {
	quick := *d
	quick.pathless = true
	if e, err := quick.entry(n, ""); err == nil {
		return e, nil
	}
	return d.entry(n, yamlx.Index("tape", i))
}

func newDecoder(filename string) *decoder {
	return &decoder{Decoder: yamlx.Decoder{File: filename, In: "a tape"}, names: map[string]string{}}
}

// formatError returns err, when it is a *fileerr.Error, as one of kind
// ErrFormat.
func formatError(err error) error {
	if e, ok := err.(*fileerr.Error); ok {
		return &fileerr.Error{Kind: ErrFormat, File: e.File, Line: e.Line, Key: e.Key, Problem: e.Problem}
	}
	return err
}

// count decodes a non-negative integer.
func (d *decoder) count(n *yaml.Node, path string) (int, error) {
	if err := d.Want(n, path, yaml.ScalarNode); err != nil {
		return 0, err
	}
	if n.ShortTag() != "!!int" {
		return 0, d.Errf(n, path, "want an integer, got %s", yamlx.Describe(n))
	}
	v, err := strconv.ParseInt(n.Value, 0, 0)
	if err != nil {
		return 0, d.Errf(n, path, "integer %s out of range", n.Value)
	}
	if v < 0 {
		return 0, d.Errf(n, path, "want a non-negative integer, got %d", v)
	}
	return int(v), nil
}

func (d *decoder) entries(n *yaml.Node) ([]Entry, error) {
	if err := d.Want(n, "tape", yaml.SequenceNode); err != nil {
		return nil, err
	}
	entries := make([]Entry, 0, len(n.Content))
	for i, c := range n.Content {
		e, err := d.EntryAt(c, i)
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
	seen, err := d.Fields(n, path, entryKeys, func(key string, v *yaml.Node) error {
		var err error
		switch key {
		case "response":
			e.Response, err = d.response(v, d.join(path, key))
		case "error":
			errNode = v
			err = d.entryError(v, d.join(path, key), &e)
		case "user":
			e.User, err = d.user(v, d.join(path, key))
		case "request":
			e.Request, err = d.request(v, d.join(path, key))
		}
		return err
	})
	if err != nil {
		return Entry{}, err
	}
	var kinds []string
	for _, k := range []string{"response", "error", "user"} {
		if seen.Has(k) {
			kinds = append(kinds, k)
		}
	}
	switch {
	case len(kinds) > 1:
		return Entry{}, d.Errf(n, path, "both %s and %s (want exactly one of response, error and user)", kinds[0], kinds[1])
	case len(kinds) == 0:
		return Entry{}, d.Errf(n, path, "missing required key %q (or %q, or %q for a user turn)", "response", "error", "user")
	case seen.Has("user") && seen.Has("request"):
		return Entry{}, d.Errf(n, path, "a user turn has no request (request: belongs to the model call after it)")
	case seen.Has("error") && e.Error == "":
		return Entry{}, d.Errf(errNode, d.join(path, "error"), "empty error text")
	}
	return e, nil
}

// user decodes a user turn: a string, or a mapping {content, name}.
func (d *decoder) user(n *yaml.Node, path string) (*llm.Message, error) {
	m := llm.Message{Role: llm.RoleUser}
	if n.Kind == yaml.ScalarNode {
		var err error
		if m.Content, err = d.Str(n, path); err != nil {
			return nil, err
		}
		return &m, nil
	}
	seen, err := d.Fields(n, path, userKeys, func(key string, v *yaml.Node) error {
		var err error
		switch key {
		case "content":
			m.Content, err = d.Str(v, d.join(path, key))
		case "name":
			m.Name, err = d.Str(v, d.join(path, key))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !seen.Has("content") {
		return nil, d.Errf(n, path, "missing required key %q", "content")
	}
	return &m, nil
}

func (d *decoder) response(n *yaml.Node, path string) (*llm.Response, error) {
	r := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}}
	_, err := d.Fields(n, path, responseKeys, func(key string, v *yaml.Node) error {
		var err error
		p := d.join(path, key)
		switch key {
		case "reasoning":
			r.Message.Reasoning, err = d.reasoning(v, p)
		case "content":
			r.Message.Content, err = d.Str(v, p)
		case "tool_calls":
			r.Message.ToolCalls, err = d.calls(v, p)
		case "finish_reason":
			var s string
			s, err = d.Str(v, p)
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
	seen, err := d.Fields(n, path, usageKeys, func(key string, v *yaml.Node) error {
		var err error
		switch key {
		case "input_tokens":
			u.InputTokens, err = d.count(v, d.join(path, key))
		case "output_tokens":
			u.OutputTokens, err = d.count(v, d.join(path, key))
		case "cached_input_tokens":
			u.CachedInputTokens, err = d.count(v, d.join(path, key))
		case "cache_write_tokens":
			u.CacheWriteTokens, err = d.count(v, d.join(path, key))
		case "reasoning_tokens":
			u.ReasoningTokens, err = d.count(v, d.join(path, key))
		}
		return err
	})
	// A cache count the tape states, zero included, is the vendor's report.
	u.CacheReported = llm.ReportedZeroCache(seen.Has("cached_input_tokens") || seen.Has("cache_write_tokens"), u.CachedInputTokens, u.CacheWriteTokens)
	return u, err
}

// calls decodes a tool_calls sequence; an empty sequence gives nil.
func (d *decoder) calls(n *yaml.Node, path string) ([]llm.ToolCall, error) {
	if err := d.Want(n, path, yaml.SequenceNode); err != nil {
		return nil, err
	}
	if len(n.Content) > MaxCallsPerResponse {
		return nil, d.Errf(n, path, "%d calls, more than the %d one response may hold", len(n.Content), MaxCallsPerResponse)
	}
	var calls []llm.ToolCall
	if len(n.Content) > 0 {
		calls = make([]llm.ToolCall, 0, len(n.Content))
	}
	for i, c := range n.Content {
		p := d.index(path, i)
		var tc llm.ToolCall
		seen, err := d.Fields(c, p, callKeys, func(key string, v *yaml.Node) error {
			var err error
			switch key {
			case "id":
				tc.ID, err = d.Str(v, d.join(p, key))
			case "name":
				tc.Name, err = d.Str(v, d.join(p, key))
				tc.Name = d.name(tc.Name)
			case "arguments":
				tc.Arguments, err = d.arguments(v, d.join(p, key))
			case "signature":
				tc.Signature, err = d.opaque(v, d.join(p, key))
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if !seen.Has("name") {
			return nil, d.Errf(c, p, "missing required key %q", "name")
		}
		calls = append(calls, tc)
	}
	return calls, nil
}

func (d *decoder) request(n *yaml.Node, path string) (*RequestSummary, error) {
	s := &RequestSummary{}
	_, err := d.Fields(n, path, requestKeys, func(key string, v *yaml.Node) error {
		var err error
		p := d.join(path, key)
		switch key {
		case "offered":
			s.Offered, err = d.offered(v, p)
		case "new":
			s.New, err = d.messages(v, p)
		case "tools":
			s.Tools, err = d.Strs(v, p)
		case "last_message":
			var m llm.Message
			m, err = d.message(v, p)
			s.LastMessage = &m
		case "messages":
			s.Messages, err = d.messages(v, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// messages decodes a sequence of messages; it is never nil on success.
func (d *decoder) messages(n *yaml.Node, path string) ([]llm.Message, error) {
	if err := d.Want(n, path, yaml.SequenceNode); err != nil {
		return nil, err
	}
	out := make([]llm.Message, 0, len(n.Content))
	for i, c := range n.Content {
		m, err := d.message(c, d.index(path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func (d *decoder) message(n *yaml.Node, path string) (llm.Message, error) {
	var m llm.Message
	var roleNode *yaml.Node
	seen, err := d.Fields(n, path, messageKeys, func(key string, v *yaml.Node) error {
		var err error
		p := d.join(path, key)
		switch key {
		case "role":
			roleNode = v
			var s string
			s, err = d.Str(v, p)
			m.Role = llm.Role(s)
		case "reasoning":
			m.Reasoning, err = d.requestReasoning(v, p)
		case "content":
			m.Content, err = d.Str(v, p)
		case "tool_calls":
			m.ToolCalls, err = d.calls(v, p)
		case "tool_call_id":
			m.ToolCallID, err = d.Str(v, p)
		case "name":
			m.Name, err = d.Str(v, p)
		case "is_error":
			m.IsError, err = d.Bool(v, p)
		}
		return err
	})
	if err != nil {
		return llm.Message{}, err
	}
	if !seen.Has("role") {
		return llm.Message{}, d.Errf(n, path, "missing required key %q", "role")
	}
	if !m.Role.Valid() {
		return llm.Message{}, d.Errf(roleNode, d.join(path, "role"), "invalid role %q (want system, user, assistant, tool)", m.Role)
	}
	return m, nil
}

// errorKeys are the keys of an error entry written as a mapping.
var errorKeys = []string{"message", "kind", "status", "retry_after"}

// errorKinds are the provider error kinds a tape may record.
var errorKinds = []string{
	string(llm.ErrRateLimited), string(llm.ErrOverloaded), string(llm.ErrAuth), string(llm.ErrBadRequest),
	string(llm.ErrContextTooLong), string(llm.ErrTimeout), string(llm.ErrCancelled), string(llm.ErrMalformed),
	string(llm.ErrUnreachable),
}

// entryError decodes an entry's error: its text, or a mapping {message,
// kind, status, retry_after} for a typed provider error.
func (d *decoder) entryError(n *yaml.Node, path string, e *Entry) error {
	if n.Kind != yaml.MappingNode {
		var err error
		e.Error, err = d.Str(n, path)
		return err
	}
	seen, err := d.Fields(n, path, errorKeys, func(key string, v *yaml.Node) error {
		var err error
		switch key {
		case "message":
			e.Error, err = d.Str(v, d.join(path, key))
		case "kind":
			var k string
			k, err = d.Enum(v, d.join(path, key), errorKinds...)
			e.ErrorKind = llm.ErrorKind(k)
		case "status":
			var st int64
			st, err = d.Int(v, d.join(path, key), 100, 599)
			e.ErrorStatus = int(st)
		case "retry_after":
			e.RetryAfter, err = d.Duration(v, d.join(path, key))
		}
		return err
	})
	if err != nil {
		return err
	}
	if !seen.Has("message") {
		return d.Errf(n, path, "missing required key %q", "message")
	}
	if !seen.Has("kind") && (seen.Has("status") || seen.Has("retry_after")) {
		return d.Errf(n, path, "status and retry_after need a kind (want one of %s)", strings.Join(errorKinds, ", "))
	}
	return nil
}
