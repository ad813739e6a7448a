package yamlx

import (
	"bytes"
	"io"

	"go.yaml.in/yaml/v3"
)

// Counted names a sequence inside each item of the sequence ParseCut cuts
// whose items EachItem counts from their text instead of parsing them, when
// there are more than Over: for a caller that refuses such a sequence for
// its length alone (a tape's response with more tool calls than one response
// may hold), before its items would take ~25 times their text as nodes. The
// zero value counts nothing.
type Counted struct {
	// Keys leads from an item to the sequence: the first is a key of the
	// item's mapping, each next a key of the mapping that is the value of
	// the one before, the last the sequence's own. Empty counts nothing.
	Keys []string
	// Over is the most items the sequence may hold and still be parsed;
	// only one holding more is counted.
	Over int
}

// counted is a sequence cutCounted took out of an item's text, its lines
// counted from the item's first line (1).
type counted struct {
	keyLine int  // the line of its key, where "[]" now stands
	keyCol  int  // the column of that "[" (1-based)
	line    int  // the line of the sequence's node: its first "-", or its "["
	col     int  // that node's column (1-based)
	n       int  // its items
	flow    bool // written [...]
	// parse says the text alone does not make the count exact: the items,
	// from offset from at indentation indent, must be parsed to be counted
	// (parsedCount).
	parse        bool
	from, indent int
}

// countedNode is, for the sequence c left as "[]" in the nodes of an item
// parsed with it cut out, the node a decoder reads in its place: a sequence
// at the line and column, and of the style, the sequence has in the file,
// whose Content holds c.n times one null node at that line. A decoder that
// refuses the sequence for its length reads what it reads in the whole item;
// nothing reads its items, or it would read nulls (ParseCut counts only more
// than Over of them, for such a decoder).
func countedNode(n *yaml.Node, c *counted) {
	n.Line, n.Column = c.line, c.col
	if !c.flow {
		n.Style = 0
	}
	null := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: c.line, Column: c.col}
	n.Content = make([]*yaml.Node, c.n)
	for i := range n.Content {
		n.Content[i] = null
	}
}

// findCounted returns the empty flow sequence c left in item, reached from
// it through keys, or nil when there is none there (the text cut was not
// that sequence).
func findCounted(item *yaml.Node, keys []string, c *counted) *yaml.Node {
	if len(keys) == 0 {
		if item.Kind == yaml.SequenceNode && item.Style == yaml.FlowStyle && len(item.Content) == 0 &&
			item.Line == c.keyLine && item.Column == c.keyCol {
			return item
		}
		return nil
	}
	if item.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(item.Content); i += 2 {
		if k := item.Content[i]; k.Kind == yaml.ScalarNode && k.Value == keys[0] {
			if n := findCounted(item.Content[i+1], keys[1:], c); n != nil {
				return n
			}
		}
	}
	return nil
}

// cutCounted finds in text, one item of a cut sequence, the first line
// holding key (a mapping's key on a line of its own, its value a block
// sequence on the lines after it or a flow sequence starting on its line)
// whose sequence has more than over items, and returns text with that
// sequence written "[]" on the key's line and its other lines left empty (so
// every other line keeps its number), and the sequence's count and place.
// It returns nil when it finds none, or cannot count the first it finds
// exactly from its text (countBlock, countFlow).
func cutCounted(text []byte, key string, over int) ([]byte, *counted) {
	for off, line := 0, 1; off < len(text); off, line = lineEnd(text, off)+1, line+1 {
		l := text[off:lineEnd(text, off)]
		n := leadingSpaces(l)
		body := l[n:]
		if !bytes.HasPrefix(body, []byte(key+":")) {
			continue
		}
		after := body[len(key)+1:]
		t := bytes.TrimLeft(after, " ")
		var c *counted
		var head, end int // where "[]" goes, and the offset after the sequence's text
		switch {
		case onlyComment(after):
			head = off + n + len(key) + 1
			c, end = countBlock(text, lineEnd(text, off)+1, line, n)
		case len(t) < len(after) && t[0] == '[':
			head = off + len(l) - len(t)
			c, end = countFlow(text, head, line)
		default:
			continue
		}
		if c == nil {
			return nil, nil
		}
		if c.n <= over {
			continue
		}
		if c.parse && !parsedCount(text[c.from:end], c.indent, c.n) {
			return nil, nil
		}
		breaks := bytes.Count(text[lineEnd(text, off):end], []byte("\n"))
		rest := make([]byte, 0, head+3+breaks+len(text)-end)
		rest = append(rest, text[:head]...)
		if c.flow {
			rest = append(rest, "[]"...)
			c.keyCol = head - off + 1
		} else {
			rest = append(rest, " []"...)
			c.keyCol = head - off + 2
		}
		c.keyLine = line
		rest = append(rest, bytes.Repeat([]byte("\n"), breaks)...)
		return append(rest, text[end:]...), c
	}
	return nil, nil
}

// countBlock counts the items of the block sequence whose lines start at
// off, the line after its key's (keyLine, at indentation keyIndent), and
// returns the offset of the first line after it (or len(text)); nil when
// the lines after the key are not a sequence or cannot be counted exactly.
//
// Every item starts a line with "- " at the sequence's indentation, and in
// YAML nothing else can but text inside a quoted scalar or a flow
// collection spanning lines (the lines of a plain or block scalar are
// indented more than the items): so the items are counted from the text
// when no line holds a quote and each line closes every flow collection it
// opens (countable). Otherwise c.parse asks for parsedCount; a tab in the
// indentation or a line that cannot belong to the sequence leaves it to the
// parser.
func countBlock(text []byte, off, keyLine, keyIndent int) (*counted, int) {
	c := &counted{}
	indent := -1
	for line := keyLine + 1; off < len(text); off, line = lineEnd(text, off)+1, line+1 {
		l := text[off:lineEnd(text, off)]
		n := leadingSpaces(l)
		body := l[n:]
		switch {
		case len(body) > 0 && body[0] == '\t':
			return nil, 0 // a tab in the indentation
		case len(body) == 0, body[0] == '#':
			// A blank line or a comment.
		case indent < 0:
			if !isItem(body) || n < keyIndent {
				return nil, 0
			}
			indent = n
			c.line, c.col, c.from, c.indent = line, n+1, off, n
			c.n++
		case n > indent:
			// Inside the item.
		case n == indent && isItem(body):
			c.n++
		case body[0] == '-':
			return nil, 0 // "-" and a tab, say: left to the parser
		case n == indent && indent == keyIndent, n < indent && n <= keyIndent:
			return c, off // the next key of the mapping, or less indented
		default:
			return nil, 0
		}
		c.parse = c.parse || !countable(body)
	}
	if indent < 0 {
		return nil, 0
	}
	return c, len(text)
}

// chunkItems is how many items parsedCount parses at once: enough that a
// parser's own buffers (~12 KB) cost little next to the nodes, few enough
// that the nodes of one chunk stay small (some 100 KB for calls of a line).
// A variable for FuzzCounted, which makes chunks of two.
var chunkItems = 256

// parsedCount reports whether the n items of the block sequence text, each
// starting a line with "- " at indentation indent, are the items YAML
// reads: parsed on their own a chunk at a time, each chunk must read as a
// block sequence of exactly its items. A quoted text or a flow collection
// spanning items makes a chunk read fewer, or none; an alias to an anchor
// outside its chunk does not parse. Only one chunk's nodes exist at once.
func parsedCount(text []byte, indent, n int) bool {
	start, items := 0, 0
	for off := 0; off < len(text); off = lineEnd(text, off) + 1 {
		l := text[off:lineEnd(text, off)]
		if leadingSpaces(l) != indent || !isItem(l[indent:]) {
			continue
		}
		if items == chunkItems {
			if !parsesAs(text[start:off], items) {
				return false
			}
			start, items, n = off, 0, n-items
		}
		items++
	}
	return items == n && parsesAs(text[start:], items)
}

// parsesAs reports whether text parses on its own as one document, a block
// sequence of n items.
func parsesAs(text []byte, n int) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(text))
	var doc, extra yaml.Node
	if dec.Decode(&doc) != nil || dec.Decode(&extra) != io.EOF {
		return false
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return false
	}
	seq := doc.Content[0]
	return seq.Kind == yaml.SequenceNode && seq.Style == 0 && len(seq.Content) == n
}

// countFlow counts the items of the flow sequence whose "[" is at open, on
// line keyLine, and returns the
// offset of the line break ending the line of its "]" (or len(text)); nil
// when it cannot be counted exactly: a quote, a tag, a "#" that is not a
// comment, a line starting in column 0 or with a tab.
//
// Inside a flow collection every bracket and comma is YAML's but in quoted
// text, a tag or a comment (an anchor's or alias's name holds none); so
// the items are the commas at the first depth, and the content after the
// last.
func countFlow(text []byte, open, keyLine int) (*counted, int) {
	c := &counted{flow: true, line: keyLine, col: open - (bytes.LastIndexByte(text[:open], '\n') + 1) + 1}
	depth, content := 0, false
	for i := open; i < len(text); i++ {
		b := text[i]
		switch {
		case b == '\n':
			next := text[i+1 : lineEnd(text, i+1)]
			if n := leadingSpaces(next); n < len(next) && (n == 0 || next[n] == '\t') {
				return nil, 0 // a document marker, say, or a tab
			}
			continue
		case b == ' ' || b == '\t':
			continue
		case b == '#':
			if !isBlankBefore(text, i) {
				return nil, 0
			}
			i = lineEnd(text, i) - 1 // a comment
			continue
		case b == '"' || b == '\'' || b == '!':
			return nil, 0 // quoted text or a tag, which could hold a bracket or a comma
		case b == '[' || b == '{':
			depth++
			if depth == 1 {
				continue
			}
		case b == ']' || b == '}':
			depth--
			if depth == 0 {
				if b != ']' {
					return nil, 0
				}
				if content {
					c.n++
				}
				rest := text[i+1 : lineEnd(text, i)]
				if t := bytes.TrimLeft(rest, " "); len(t) > 0 && (len(t) == len(rest) || t[0] != '#') {
					return nil, 0
				}
				return c, lineEnd(text, i)
			}
		case b == ',' && depth == 1:
			if !content {
				return nil, 0 // an empty entry: leave it to the parser
			}
			c.n++
			content = false
			continue
		}
		if depth == 1 {
			content = true
		}
	}
	return nil, 0
}

// isBlankBefore reports whether the byte before i is a space or a tab, or
// i starts a line.
func isBlankBefore(text []byte, i int) bool {
	return i == 0 || text[i-1] == ' ' || text[i-1] == '\t' || text[i-1] == '\n'
}

// countable reports whether a line of a block sequence can be counted from
// its text (countBlock): it holds no quote, and each flow collection it
// opens, it closes. A "[" or "{" opens one where YAML can start a token
// with it, after a space or at the line's start, and everywhere inside one;
// a "#" after a space starts a comment; inside a collection, a "#" after
// anything else (a comment after a comma, or text) or a tag (which could
// hold a bracket) make it uncountable.
func countable(l []byte) bool {
	depth := 0
	for i := 0; i < len(l); i++ {
		b := l[i]
		blank := i == 0 || l[i-1] == ' ' || l[i-1] == '\t'
		switch {
		case b == '"' || b == '\'':
			return false
		case b == '#' && blank:
			return depth == 0
		case depth > 0 && (b == '#' || b == '!'):
			return false
		case b == '[' || b == '{':
			if depth > 0 || blank {
				depth++
			}
		case (b == ']' || b == '}') && depth > 0:
			depth--
		}
	}
	return depth == 0
}
