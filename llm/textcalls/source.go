package textcalls

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// source is the text under examination, the offered tools, and the regions where
// no call may be taken from: reasoning, code that is not JSON, examples.
type source struct {
	text    string
	schemas map[string]json.RawMessage // offered name -> parameters schema as given
	decoded map[string]map[string]any  // offered name -> schema decoded by schema; nil until needed
	thought []span                     // reasoning, merged and sorted
	code    []span                     // code blocks that are not JSON, merged and sorted
	// lastCloser is the index of the text's last > or ] (-1: none); unknownCloser
	// until cutOff first needs it.
	lastCloser int
}

// unknownCloser marks source.lastCloser as not yet computed.
const unknownCloser = -2

func newSource(text string, tools []llm.ToolDefinition) *source {
	s := &source{text: text, schemas: make(map[string]json.RawMessage, len(tools)), lastCloser: unknownCloser}
	for _, t := range tools {
		if t.Name != "" {
			s.schemas[t.Name] = t.Parameters
		}
	}
	s.thought = merge(reasoningSpans(text))
	s.code = merge(codeSpans(text))
	return s
}

// schema returns the named tool's parameters schema decoded (nil when it has
// none or it is not an object), decoding each tool's schema once per source.
func (s *source) schema(name string) map[string]any {
	if m, ok := s.decoded[name]; ok {
		return m
	}
	if s.decoded == nil {
		s.decoded = make(map[string]map[string]any)
	}
	m := decodeSchema(s.schemas[name])
	s.decoded[name] = m
	return m
}

// merge sorts spans and joins overlapping ones.
func merge(sp []span) []span {
	sort.Slice(sp, func(i, j int) bool { return sp[i].start < sp[j].start })
	var out []span
	for _, p := range sp {
		if n := len(out); n > 0 && p.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, p.end)
			continue
		}
		out = append(out, p)
	}
	return out
}

// allowed reports whether a call starting at pos may be extracted: not in
// reasoning, not in a non-JSON code block, not introduced as an example.
func (s *source) allowed(pos int) bool {
	return !inSpans(s.thought, pos) && !inSpans(s.code, pos) && !introducedAsExample(s.text, pos)
}

// messageStart returns the first non-space position after any leading reasoning:
// where a message that is nothing but a call must start.
func (s *source) messageStart() int {
	pos := skipSpace(s.text, 0)
	for _, t := range s.thought {
		if t.start <= pos && pos < t.end {
			pos = skipSpace(s.text, t.end)
		}
	}
	return pos
}

// inSpans reports whether pos lies in one of the merged, sorted spans.
func inSpans(sp []span, pos int) bool {
	k := sort.Search(len(sp), func(i int) bool { return sp[i].end > pos })
	return k < len(sp) && sp[k].start <= pos
}

// index returns the first allowed occurrence of tok at or after from, or -1.
func (s *source) index(tok string, from int) int {
	for from <= len(s.text) {
		i := strings.Index(s.text[from:], tok)
		if i < 0 {
			return -1
		}
		i += from
		if s.allowed(i) {
			return i
		}
		from = i + len(tok)
	}
	return -1
}

// eachTag calls fn for every allowed open token, in order: i is where it
// starts, body where its body starts, and limit and end are bodyEnd's. The scan
// resumes after end, so bodies never overlap.
//
// An open token repeated with only space before the next one opens one
// envelope, not two: <tool_call>\n<tool_call>{…}</tool_call> is one call,
// whose span starts at the first token.
func (s *source) eachTag(open, close string, fn func(i, body, limit, end int)) {
	first := -1
	for pos := 0; ; {
		i := s.index(open, pos)
		if i < 0 {
			return
		}
		body := i + len(open)
		limit, end := bodyEnd(s.text, body, open, close)
		if end == limit && limit < len(s.text) && isBlank(s.text[body:limit]) {
			if first < 0 {
				first = i
			}
			pos = limit
			continue
		}
		if first >= 0 {
			i, first = first, -1
		}
		fn(i, body, limit, end)
		pos = max(end, body)
	}
}

// isBlank reports whether t holds only space.
func isBlank(t string) bool { return skipSpace(t, 0) == len(t) }

// cutAt reports whether an envelope opened before end and ending there was
// cut off with the response: it reaches the end of the text without its whole
// close token.
func cutAt(text string, end int, close string) bool {
	return end == len(text) && close != "" && !strings.HasSuffix(text, close)
}

// bodyEnd returns where the body that starts at body ends (limit) and where the
// envelope ends (end, after close). A close token counts only before the next open
// token, which keeps the work linear; without one the body runs to the next open
// token or the end of text, less a truncated close token.
func bodyEnd(text string, body int, open, close string) (limit, end int) {
	limit = len(text)
	if j := strings.Index(text[body:], open); j >= 0 {
		limit = body + j
	}
	if close != "" {
		if j := strings.Index(text[body:limit], close); j >= 0 {
			return body + j, body + j + len(close)
		}
	}
	end = limit
	if close != "" && limit == len(text) {
		for k := len(close) - 1; k >= 2; k-- {
			if strings.HasSuffix(text[body:limit], close[:k]) {
				limit -= k
				break
			}
		}
	}
	return limit, end
}

// thinkPair is a reasoning opener and its closer.
type thinkPair struct{ open, close string }

var thinkPairs = []thinkPair{
	{"<think>", "</think>"},
	{"<thinking>", "</thinking>"},
	{"<seed:think>", "</seed:think>"},
	{"[THINK]", "[/THINK]"},
	{"<|START_THINKING|>", "<|END_THINKING|>"},
	{"<|channel>thought", "<channel|>"},
	{"", "[BEGIN FINAL RESPONSE]"}, // Apriel: everything before it is reasoning
}

// strongOpeners are special tokens that end an unclosed reasoning block: a model
// emits them as single tokens, never while quoting.
//
// The call tags of the common XML-like envelopes end it too: a model that
// opened <think> and then wrote a call forgot to close its reasoning (as
// Laguna-style templates produce), and the call is meant.
var strongOpeners = []string{
	"<|tool_calls_section_begin|>", "<|tool_call_begin|>", "<｜tool▁calls▁begin｜>", "<｜DSML｜function_calls>", "<｜tool_calls_begin｜>",
	"<tool_call>", "<function_calls>", "<function=", "[TOOL_CALLS]", "<|python_start|>", "<|tool_call_start|>",
}

// reasoningSpans finds the reasoning regions of text.
func reasoningSpans(text string) []span {
	var out []span
	for _, p := range thinkPairs {
		pos := 0
		nextC, nextO := -2, -2 // absolute positions of the next closer/opener; -2: unknown
		for pos < len(text) {
			if nextC != -1 && nextC < pos {
				nextC = indexFrom(text, p.close, pos)
			}
			if p.open == "" {
				nextO = -1
			} else if nextO != -1 && nextO < pos {
				nextO = indexFrom(text, p.open, pos)
			}
			c, o := nextC, nextO
			if c >= 0 {
				c -= pos
			}
			if o >= 0 {
				o -= pos
			}
			switch {
			case c < 0 && o < 0:
				pos = len(text)
			case o >= 0 && (c < 0 || o < c): // an opener
				start := pos + o
				body := start + len(p.open)
				if c >= 0 {
					end := pos + c + len(p.close)
					out = append(out, span{start, end})
					pos = end
					continue
				}
				end := len(text)
				for _, tok := range strongOpeners {
					if k := strings.Index(text[body:], tok); k >= 0 && body+k < end {
						end = body + k
					}
				}
				out = append(out, span{start, end})
				pos = len(text)
			default: // a lone closer: everything before it is reasoning
				end := pos + c + len(p.close)
				out = append(out, span{0, end})
				pos = end
			}
		}
	}
	out = append(out, inklingThoughts(text)...)
	// gpt-oss analysis messages not addressed to a tool.
	const ch = "<|channel|>analysis"
	for pos := 0; pos < len(text); {
		i := strings.Index(text[pos:], ch)
		if i < 0 {
			break
		}
		start := pos + i
		m := strings.Index(text[start:], "<|message|>")
		if m < 0 {
			break
		}
		header := text[start : start+m]
		end := len(text)
		if e := strings.Index(text[start+m:], "<|end|>"); e >= 0 {
			end = start + m + e
		}
		if !strings.Contains(header, "to=") && !strings.Contains(harmonyHeader(text, start), "to=") {
			out = append(out, span{start, end})
		}
		pos = end
	}
	return out
}

// indexFrom returns the absolute index of tok at or after from, or -1.
func indexFrom(text, tok string, from int) int {
	if i := strings.Index(text[from:], tok); i >= 0 {
		return from + i
	}
	return -1
}

// harmonyHeaderWindow is how far back a harmony header is looked for: a header
// is short, and the bound keeps the work per candidate constant.
const harmonyHeaderWindow = 256

// lastBefore returns the index of the last tok in the harmonyHeaderWindow bytes
// before pos, or -1.
func lastBefore(text string, pos int, tok string) int {
	from := max(0, pos-harmonyHeaderWindow)
	if i := strings.LastIndex(text[from:pos], tok); i >= 0 {
		return from + i
	}
	return -1
}

// harmonyHeader returns the harmony header text before pos: back to the previous
// <|start|> token, or the whole window when there is none.
func harmonyHeader(text string, pos int) string {
	if i := lastBefore(text, pos, "<|start|>"); i >= 0 {
		return text[i:pos]
	}
	return text[max(0, pos-harmonyHeaderWindow):pos]
}

// codeSpans finds fenced code blocks whose language is not json, unlabelled ones
// included (fenced_json looks into those itself), HTML <pre> and <code>
// blocks, and inline code.
func codeSpans(text string) []span {
	var out []span
	for pos := 0; pos < len(text); {
		i := strings.Index(text[pos:], "```")
		if i < 0 {
			break
		}
		start := pos + i
		lineEnd := strings.IndexByte(text[start:], '\n')
		if lineEnd < 0 {
			break
		}
		lang := strings.ToLower(strings.TrimSpace(text[start+3 : start+lineEnd]))
		j := strings.Index(text[start+lineEnd:], "```")
		end := len(text)
		if j >= 0 {
			end = start + lineEnd + j + 3
		}
		if lang != "json" && !strings.Contains(lang, "`") {
			out = append(out, span{start, end})
		}
		pos = end
	}
	// HTML code and preformatted blocks: <pre>…</pre>, <code>…</code>
	for _, tag := range [][2]string{{"<pre>", "</pre>"}, {"<code>", "</code>"}} {
		for pos := 0; pos < len(text); {
			i := strings.Index(text[pos:], tag[0])
			if i < 0 {
				break
			}
			start := pos + i
			end := len(text)
			if j := strings.Index(text[start:], tag[1]); j >= 0 {
				end = start + j + len(tag[1])
			}
			out = append(out, span{start, end})
			pos = end
		}
	}
	// inline `code` on one line
	for pos := 0; pos < len(text); {
		i := strings.IndexByte(text[pos:], '`')
		if i < 0 {
			break
		}
		start := pos + i
		if strings.HasPrefix(text[start:], "```") {
			k := strings.Index(text[start+3:], "```")
			if k < 0 {
				break
			}
			pos = start + 3 + k + 3
			continue
		}
		j := strings.IndexAny(text[start+1:], "`\n")
		if j < 0 {
			break
		}
		if text[start+1+j] == '`' {
			out = append(out, span{start, start + 1 + j + 1})
			pos = start + j + 2
		} else {
			pos = start + 1 + j
		}
	}
	return out
}

// exampleMarkers are words that introduce an example rather than a call.
var exampleMarkers = []string{"example", "e.g.", "for instance", "such as", "format", "syntax", "sample", "like this", "looks like", "would look",
	"here's how", "here is how", "would use", "would send", "would call", "would write", "could use", "you can use", "for reference", "the call was"}

// introducedAsExample reports whether the text before pos on its line (or, when that
// is blank, the previous non-blank line if it ends with ':') contains an example
// marker as a whole word in prose: "information" and "formatted" hold no marker,
// and neither does a "format" key inside an earlier call.
func introducedAsExample(text string, pos int) bool {
	const window = 400 // look back no further: bounded work per candidate
	from := max(0, pos-window)
	lineStart := from + strings.LastIndexByte(text[from:pos], '\n') + 1
	before := text[lineStart:pos]
	var buf [2 * 400]byte // before is at most two windows long: no allocation
	// A line holding only the envelope's own tags before pos (<tool_call>
	// <function=…>) counts as blank: the prose introducing it is above.
	// So do such lines above it, up to the line of prose, which introduces
	// the call when its prose ends with ':'.
	if isBlank(string(proseOf(buf[:0], before))) && lineStart > 0 {
		above := text[max(0, lineStart-window):lineStart]
		before = ""
		for range 4 {
			above = strings.TrimRight(above, " \t\r\n")
			ps := strings.LastIndexByte(above, '\n') + 1
			prose := strings.TrimSpace(string(proseOf(buf[:0], above[ps:])))
			if prose != "" {
				// The prose introduces the call when it ends with ':' or
				// when the envelope's opening tag follows it on its line
				// ("I would use <tool_call>").
				if strings.HasSuffix(prose, ":") || strings.HasSuffix(above, ">") {
					before = above[ps:]
				}
				break
			}
			if ps == 0 {
				break
			}
			above = above[:ps]
		}
	}
	return hasMarker(proseOf(buf[:0], before))
}

// proseOf appends the prose of s to b, lower-cased: without tags <…>,
// bracketed {…} and […] text, and "quoted" text, where a call or its
// arguments are.
func proseOf(b []byte, s string) []byte {
	depth := 0
	inTag, inStr := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case inTag:
			inTag = c != '>'
		case c == '{' || c == '[':
			depth++
		case (c == '}' || c == ']') && depth > 0:
			depth--
		case depth > 0:
			if c == '"' {
				inStr = true
			}
		case c == '<':
			inTag = true
		case c == '"':
			inStr = true
		default:
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
		}
	}
	return b
}

// hasMarker reports whether the lower-cased prose holds an example marker as
// a whole word.
func hasMarker(prose []byte) bool {
	for _, m := range exampleMarkers {
		for i := 0; ; {
			k := bytes.Index(prose[i:], []byte(m))
			if k < 0 {
				break
			}
			k += i
			end := k + len(m)
			if (k == 0 || !isWordChar(prose[k-1])) && (end >= len(prose) || !isWordChar(prose[end])) {
				return true
			}
			i = k + 1
		}
	}
	return false
}

// isWordChar reports a byte of a word: a letter, a digit, _ or any non-ASCII
// byte.
func isWordChar(c byte) bool {
	return c == '_' || c >= 0x80 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}
