package tape

import (
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/internal/atomicfile"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
)

// Save writes t to path as a standalone tape file (see Encode), atomically:
// it writes a temporary file in the same directory and renames it over path,
// so path holds either its old contents or the whole new tape, never a part.
func Save(path string, t *Tape) error {
	p, err := atomicfile.Create(path)
	if err != nil {
		return fmt.Errorf("saving tape: %w", err)
	}
	defer p.Cleanup()
	if err := Encode(p, t); err != nil {
		return fmt.Errorf("saving tape %s: %w", path, err)
	}
	if err := p.Commit(); err != nil {
		return fmt.Errorf("saving tape %s: %w", path, err)
	}
	return nil
}

// Encode writes t as a standalone tape file in canonical form: `format`,
// `name` (when set), `offered` (when recorded), `tape` and `judge` (when
// there are verdicts), keys in a fixed order, empty fields left
// out, literal blocks for multi-line text, tool-call arguments always as a
// string, long signatures as literal blocks of 76-byte lines (see
// opaqueText). Decoding the output and encoding it again gives the same bytes.
// A nil t encodes as an empty tape.
func Encode(w io.Writer, t *Tape) error {
	if t == nil {
		t = &Tape{}
	}
	entries, err := EncodeEntries(t.Entries)
	if err != nil {
		return err
	}
	root := yamlx.Map()
	yamlx.Add(root, "format", yamlx.Text(Format))
	if t.Name != "" {
		yamlx.Add(root, "name", yamlx.Text(t.Name))
	}
	if t.Offered != nil {
		yamlx.Add(root, "offered", EncodeOffered(t.Offered))
	}
	yamlx.Add(root, "tape", entries)
	if len(t.Verdicts) > 0 {
		judge, err := EncodeVerdicts(t.Verdicts)
		if err != nil {
			return err
		}
		yamlx.Add(root, "judge", judge)
	}
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
// embedding in a scenario file. An entry must hold exactly one of Response,
// Error and User, and its messages valid roles; otherwise the error wraps
// ErrFormat and names the entry. A nil or empty entries gives an empty
// sequence.
func EncodeEntries(entries []Entry) (*yaml.Node, error) {
	seq := yamlx.Seq()
	if len(entries) == 0 {
		seq = yamlx.FlowSeq()
	}
	for i, e := range entries {
		n, err := encodeEntry(e, yamlx.Index("tape", i))
		if err != nil {
			return nil, err
		}
		seq.Content = append(seq.Content, n)
	}
	return seq, nil
}

func encodeEntry(e Entry, path string) (*yaml.Node, error) {
	n := yamlx.Map()
	set := 0
	for _, ok := range []bool{e.Response != nil, e.Error != "", e.User != nil} {
		if ok {
			set++
		}
	}
	switch {
	case set > 1:
		return nil, &fileerr.Error{Kind: ErrFormat, Key: path, Problem: "more than one of response, error and user (want exactly one)"}
	case e.User != nil:
		if e.Request != nil {
			return nil, &fileerr.Error{Kind: ErrFormat, Key: path, Problem: "a user turn has no request"}
		}
		yamlx.Add(n, "user", UserNode(*e.User))
		return n, nil
	case e.Response != nil:
		r, err := encodeResponse(e.Response, yamlx.Join(path, "response"))
		if err != nil {
			return nil, err
		}
		yamlx.Add(n, "response", r)
	case e.Error != "" && e.ErrorKind == "":
		yamlx.Add(n, "error", yamlx.Text(e.Error))
	case e.Error != "":
		en := yamlx.Map()
		yamlx.Add(en, "message", yamlx.Text(e.Error))
		yamlx.Add(en, "kind", yamlx.Text(string(e.ErrorKind)))
		if e.ErrorStatus != 0 {
			yamlx.Add(en, "status", yamlx.Int(e.ErrorStatus))
		}
		if e.RetryAfter != 0 {
			yamlx.Add(en, "retry_after", yamlx.Text(e.RetryAfter.String()))
		}
		yamlx.Add(n, "error", en)
	default:
		return nil, &fileerr.Error{Kind: ErrFormat, Key: path, Problem: "none of response, error and user (want exactly one)"}
	}
	if e.Request != nil {
		r, err := encodeRequest(e.Request, yamlx.Join(path, "request"), true)
		if err != nil {
			return nil, err
		}
		yamlx.Add(n, "request", r)
	}
	return n, nil
}

// UserNode returns the canonical node of a user turn's value: the content as
// text, or {content, name} when the message has a name. Goldens show user
// turns the same way.
func UserNode(m llm.Message) *yaml.Node {
	if m.Name == "" {
		return yamlx.Text(m.Content)
	}
	u := yamlx.Map()
	yamlx.Add(u, "content", yamlx.Text(m.Content))
	yamlx.Add(u, "name", yamlx.Text(m.Name))
	return u
}

func encodeResponse(r *llm.Response, path string) (*yaml.Node, error) {
	n := yamlx.Map()
	if len(r.Message.Reasoning) > 0 {
		yamlx.Add(n, "reasoning", encodeReasoning(r.Message.Reasoning))
	}
	if r.Message.Content != "" {
		yamlx.Add(n, "content", yamlx.Text(r.Message.Content))
	}
	if len(r.Message.ToolCalls) > 0 {
		yamlx.Add(n, "tool_calls", encodeCalls(r.Message.ToolCalls))
	}
	if r.FinishReason != "" {
		yamlx.Add(n, "finish_reason", yamlx.Text(string(r.FinishReason)))
	}
	if r.Usage != (llm.Usage{}) {
		// In usageKeys' order; a count of zero is left out, but for a
		// cached count the vendor reported as zero (Usage.CacheReported).
		counts := []int{r.Usage.InputTokens, r.Usage.OutputTokens, r.Usage.CachedInputTokens, r.Usage.CacheWriteTokens, r.Usage.ReasoningTokens}
		u := yamlx.Map()
		for i, c := range counts {
			if c < 0 {
				return nil, &fileerr.Error{Kind: ErrFormat, Key: yamlx.Join(path, "usage"), Problem: "negative token count"}
			}
			if c != 0 || (usageKeys[i] == "cached_input_tokens" && r.Usage.CacheReported) {
				yamlx.Add(u, usageKeys[i], yamlx.Int(c))
			}
		}
		yamlx.Add(n, "usage", u)
	}
	return n, nil
}

func encodeCalls(calls []llm.ToolCall) *yaml.Node {
	seq := yamlx.Seq()
	for _, c := range calls {
		n := yamlx.Map()
		if c.ID != "" {
			yamlx.Add(n, "id", yamlx.Text(c.ID))
		}
		yamlx.Add(n, "name", yamlx.Text(c.Name)) // required, even when empty
		if c.Arguments != "" {
			yamlx.Add(n, "arguments", yamlx.Quoted(c.Arguments))
		}
		if c.Signature != "" {
			yamlx.Add(n, "signature", opaqueText(c.Signature))
		}
		seq.Content = append(seq.Content, n)
	}
	return seq
}

// encodeRequest returns the node of s; strict rejects invalid roles, and
// is off when rendering a request for a diff.
func encodeRequest(s *RequestSummary, path string, strict bool) (*yaml.Node, error) {
	n := yamlx.Map()
	if s.Offered != nil {
		yamlx.Add(n, "offered", EncodeOffered(s.Offered))
	}
	if s.New != nil {
		seq, err := encodeMessages(s.New, yamlx.Join(path, "new"), strict)
		if err != nil {
			return nil, err
		}
		yamlx.Add(n, "new", seq)
	}
	if s.Tools != nil {
		tools := yamlx.FlowSeq()
		for _, t := range s.Tools {
			tools.Content = append(tools.Content, yamlx.Text(t))
		}
		yamlx.Add(n, "tools", tools)
	}
	if s.LastMessage != nil {
		m, err := encodeMessage(*s.LastMessage, yamlx.Join(path, "last_message"), strict)
		if err != nil {
			return nil, err
		}
		yamlx.Add(n, "last_message", m)
	}
	if s.Messages != nil {
		seq, err := encodeMessages(s.Messages, yamlx.Join(path, "messages"), strict)
		if err != nil {
			return nil, err
		}
		yamlx.Add(n, "messages", seq)
	}
	return n, nil
}

// encodeMessages returns the sequence node of ms, [] when empty.
func encodeMessages(ms []llm.Message, path string, strict bool) (*yaml.Node, error) {
	seq := yamlx.Seq()
	if len(ms) == 0 {
		seq = yamlx.FlowSeq()
	}
	for i, msg := range ms {
		m, err := encodeMessage(msg, yamlx.Index(path, i), strict)
		if err != nil {
			return nil, err
		}
		seq.Content = append(seq.Content, m)
	}
	return seq, nil
}

func encodeMessage(m llm.Message, path string, strict bool) (*yaml.Node, error) {
	if strict && !m.Role.Valid() {
		return nil, &fileerr.Error{Kind: ErrFormat, Key: yamlx.Join(path, "role"), Problem: fmt.Sprintf("invalid role %q (want system, user, assistant, tool)", m.Role)}
	}
	n := yamlx.Map()
	yamlx.Add(n, "role", yamlx.Text(string(m.Role)))
	if rs := opaqueReasoning(m.Reasoning); len(rs) > 0 {
		yamlx.Add(n, "reasoning", encodeReasoning(rs)) // what is compared of it
	}
	if m.Content != "" {
		yamlx.Add(n, "content", yamlx.Text(m.Content))
	}
	if len(m.ToolCalls) > 0 {
		yamlx.Add(n, "tool_calls", encodeCalls(m.ToolCalls))
	}
	if m.ToolCallID != "" {
		yamlx.Add(n, "tool_call_id", yamlx.Text(m.ToolCallID))
	}
	if m.Name != "" {
		yamlx.Add(n, "name", yamlx.Text(m.Name))
	}
	if m.IsError {
		yamlx.Add(n, "is_error", yamlx.Bool(true))
	}
	return n, nil
}

// EncodeRequest returns the canonical node of an entry's `request:` value,
// for editing a tape in place. Messages with invalid roles are an error
// wrapping ErrFormat. A nil s gives an empty mapping.
func EncodeRequest(s *RequestSummary) (*yaml.Node, error) {
	if s == nil {
		return yamlx.Map(), nil
	}
	return encodeRequest(s, "request", true)
}

// String renders s as the canonical YAML of an entry's `request:` value,
// for a diff; unlike EncodeRequest it does not check roles, so that a
// request an agent sent with an invalid one still shows. A nil s renders
// as an empty mapping.
func (s *RequestSummary) String() string {
	n := yamlx.Map()
	if s != nil {
		var err error
		if n, err = encodeRequest(s, "request", false); err != nil {
			return "(cannot render: " + err.Error() + ")\n"
		}
	}
	out, err := yamlx.Marshal(n)
	if err != nil {
		return "(cannot render: " + err.Error() + ")\n"
	}
	return string(out)
}
