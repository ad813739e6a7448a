package tape

import (
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
)

// What a tape keeps of a model's reasoning, and what replay compares of it.
//
// A recorded response keeps its reasoning blocks whole (`reasoning:`, a
// list of {text, signature, redacted}) and each call's `signature`, so that
// replay serves them back as they came: a Responses API reasoning item
// (with encrypted_content), Anthropic's signed and redacted thinking
// blocks, Bedrock's reasoningContent, Gemini's thoughtSignature on a call
// or on text. The agent's next request must carry the opaque ones back;
// replay compares them exactly: a call's signature, and each block that
// holds a signature or redacted data, whole (its text too, which the
// vendor checks against the signature). Reasoning text given without a
// signature (OpenAI-compatible reasoning_content, a thought summary) is
// served but not compared: no API verifies it when it comes back, servers
// differ on whether it may (some refuse it, some drop it), and pinning it
// would pin pages of prose no vendor reads back; so a request's messages
// record only the opaque blocks.

// reasoningKeys are the keys of a reasoning block, in canonical order.
var reasoningKeys = []string{"text", "signature", "redacted"}

// opaque reports whether r is a block the vendor wants back byte for byte:
// one with a signature or redacted data.
func opaque(r llm.Reasoning) bool { return r.Signature != "" || r.Redacted != "" }

// opaqueReasoning returns the opaque blocks of rs, in order; nil when none.
func opaqueReasoning(rs []llm.Reasoning) []llm.Reasoning {
	var out []llm.Reasoning
	for _, r := range rs {
		if opaque(r) {
			out = append(out, r)
		}
	}
	return out
}

// encodeReasoning returns the sequence node of rs.
func encodeReasoning(rs []llm.Reasoning) *yaml.Node {
	seq := yamlx.Seq()
	for _, r := range rs {
		n := yamlx.Map()
		if r.Text != "" {
			yamlx.Add(n, "text", yamlx.Text(r.Text))
		}
		if r.Signature != "" {
			yamlx.Add(n, "signature", opaqueText(r.Signature))
		}
		if r.Redacted != "" {
			yamlx.Add(n, "redacted", opaqueText(r.Redacted))
		}
		seq.Content = append(seq.Content, n)
	}
	return seq
}

// opaqueWidth is the longest line of an opaque value written as a block.
const opaqueWidth = 76

// opaqueText returns the node of an opaque value (a signature, an
// encrypted reasoning item, redacted data): longer than opaqueWidth and
// holding no line break, a literal block of lines of at most opaqueWidth
// bytes, whose line breaks are not part of the value (see decoder.opaque),
// so that kilobytes of base64 do not make one unreadable line; otherwise
// as yamlx.Text writes text, a value holding a line break double-quoted.
func opaqueText(s string) *yaml.Node {
	if strings.ContainsAny(s, "\n\r") {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
	}
	if lines, ok := wrapOpaque(s); ok {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.Join(lines, "\n"), Style: yaml.LiteralStyle}
	}
	return yamlx.Text(s)
}

// wrapOpaque cuts s into lines of at most opaqueWidth bytes, never at a
// space or tab (a block's lines must neither start nor end with one) nor
// inside a character; false when s is short, is not valid UTF-8, holds a
// control character, or has no such cut.
func wrapOpaque(s string) ([]string, bool) {
	if len(s) <= opaqueWidth || !utf8.ValidString(s) || blank(s[0]) {
		return nil, false
	}
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0xfeff || r == 0x2028 || r == 0x2029 {
			return nil, false
		}
	}
	var lines []string
	for len(s) > opaqueWidth {
		cut := opaqueWidth
		for cut > 0 && (!utf8.RuneStart(s[cut]) || blank(s[cut]) || blank(s[cut-1])) {
			cut--
		}
		if cut == 0 {
			return nil, false
		}
		lines, s = append(lines, s[:cut]), s[cut:]
	}
	if blank(s[len(s)-1]) {
		return nil, false
	}
	return append(lines, s), true
}

func blank(c byte) bool { return c == ' ' || c == '\t' }

// opaque decodes an opaque value: a string, where a literal block's line
// breaks are not part of it (opaqueText). A folded block is refused: YAML
// joins its lines with spaces, which an opaque value does not hold.
func (d *decoder) opaque(n *yaml.Node, path string) (string, error) {
	s, err := d.Str(n, path)
	if err != nil {
		return "", err
	}
	switch n.Style {
	case yaml.LiteralStyle:
		return strings.ReplaceAll(s, "\n", ""), nil
	case yaml.FoldedStyle:
		return "", d.Errf(n, path, "a folded block (>) joins its lines with spaces; write an opaque value on one line or as a literal block (|-), whose line breaks are dropped")
	}
	return s, nil
}

// reasoning decodes a `reasoning:` sequence. Each block is a mapping of
// text, signature and redacted; an empty block, and one with redacted data
// beside text or a signature (a redacted block holds its data alone), are
// refused. An empty sequence gives nil.
func (d *decoder) reasoning(n *yaml.Node, path string) ([]llm.Reasoning, error) {
	if err := d.Want(n, path, yaml.SequenceNode); err != nil {
		return nil, err
	}
	var out []llm.Reasoning
	for i, c := range n.Content {
		p := d.index(path, i)
		var r llm.Reasoning
		_, err := d.Fields(c, p, reasoningKeys, func(key string, v *yaml.Node) error {
			var err error
			switch key {
			case "text":
				r.Text, err = d.Str(v, d.join(p, key))
			case "signature":
				r.Signature, err = d.opaque(v, d.join(p, key))
			case "redacted":
				r.Redacted, err = d.opaque(v, d.join(p, key))
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		switch {
		case r == llm.Reasoning{}:
			return nil, d.Errf(c, p, "an empty reasoning block (want text, signature or redacted)")
		case r.Redacted != "" && (r.Text != "" || r.Signature != ""):
			return nil, d.Errf(c, p, "redacted data beside text or a signature (a redacted block holds its data alone)")
		}
		out = append(out, r)
	}
	return out, nil
}

// requestReasoning decodes the reasoning of a request's message: only the
// blocks replay compares, those with a signature or redacted data; a block
// of text alone is refused, as it would be kept and never compared.
func (d *decoder) requestReasoning(n *yaml.Node, path string) ([]llm.Reasoning, error) {
	rs, err := d.reasoning(n, path)
	if err != nil {
		return nil, err
	}
	for i, r := range rs {
		if !opaque(r) {
			return nil, d.Errf(n.Content[i], d.index(path, i), "reasoning text without a signature in a request (replay compares only signed and redacted blocks; leave it out)")
		}
	}
	return rs, nil
}
