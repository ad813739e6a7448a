package yamlx

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// ErrCut is returned by EachItem when an item ParseCut cut out of the text
// does not parse on its own as one sequence item: the document must then be
// parsed whole, with Parse, which also reports any syntax error where the
// whole document has it.
var ErrCut = errors.New("an item does not parse on its own; parse the whole document")

// cut is the block sequence ParseCut took out of a document: the empty
// sequence left in its place, and the text of each item.
type cut struct {
	placeholder *yaml.Node
	line        int // the key's
	items       []span
}

// span is one item's text and the line it starts on.
type span struct {
	text []byte
	line int
}

// ParseCut is Parse for a document whose block sequence under a top-level key
// may be long (a tape). yaml.v3 builds every node of a document at once, ~25
// times the text's size; ParseCut parses the document with that sequence's
// items left out, keeping the key as an empty sequence at its line, and
// EachItem later parses the items one at a time, so no more than one item's
// nodes exist at once.
//
// It cuts only text where every item starts a line with "- " at the same
// indentation and nothing between two such lines can belong to anything but
// the item above (no tabs in indentation, no carriage returns or other line
// breaks than \n, no directives, nothing less indented before the sequence
// ends at a line starting in column 0). Otherwise, and when the rest does not
// hold the key where it was cut, it is Parse. An item that then fails to
// parse on its own (a flow collection or quoted text spanning items, an
// alias to an anchor elsewhere) makes EachItem return ErrCut.
func (d *Decoder) ParseCut(data []byte, key string) (*yaml.Node, error) {
	d.cut = nil
	rest, c := cutSequence(data, key)
	if c == nil {
		return d.Parse(data)
	}
	// The text check runs over the whole document: the items are parsed
	// later, one by one, and must be refused where Parse refuses them.
	if err := d.checkText(data); err != nil {
		return nil, err
	}
	root, err := d.Parse(rest)
	if err != nil || root == nil || root.Kind != yaml.MappingNode {
		return d.Parse(data)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Value == key && v.Kind == yaml.SequenceNode && v.Style == yaml.FlowStyle && len(v.Content) == 0 && v.Line == c.line {
			c.placeholder = v
			d.cut = c
			return root, nil
		}
	}
	return d.Parse(data)
}

// EachItem calls f with each item of the sequence n in order, and its index.
// For the sequence ParseCut left empty, it parses each item from its text
// (lines are the file's) just before calling f, and drops it after; an item
// that does not parse on its own returns ErrCut before f sees it.
func (d *Decoder) EachItem(n *yaml.Node, f func(i int, item *yaml.Node) error) error {
	if d.cut == nil || n != d.cut.placeholder {
		for i, item := range n.Content {
			if err := f(i, item); err != nil {
				return err
			}
		}
		return nil
	}
	for i, s := range d.cut.items {
		item, err := d.parseItem(s)
		if err != nil {
			return err
		}
		if err := f(i, item); err != nil {
			return err
		}
	}
	return nil
}

// IsCut reports whether n is the empty sequence ParseCut left in place of the
// sequence it cut out.
func (d *Decoder) IsCut(n *yaml.Node) bool { return d.cut != nil && n == d.cut.placeholder }

// parseItem parses one item's text, a block sequence of exactly one item, and
// returns that item with its lines moved to the file's. A sequence d.Count
// names that holds more than d.Count.Over items is counted, not parsed
// (countedNode), when its text allows: the rest of the item is parsed with
// it cut out, and must then hold it where d.Count.Keys say.
func (d *Decoder) parseItem(s span) (*yaml.Node, error) {
	if k := d.Count.Keys; len(k) > 0 {
		if rest, c := cutCounted(s.text, k[len(k)-1], d.Count.Over); c != nil {
			c.line += s.line - 1
			c.keyLine += s.line - 1
			if item, err := parseOne(span{text: rest, line: s.line}); err == nil {
				if n := findCounted(item, k, c); n != nil {
					countedNode(n, c)
					return item, nil
				}
			}
		}
	}
	return parseOne(s)
}

// parseOne is parseItem without counting.
func parseOne(s span) (item *yaml.Node, err error) {
	defer func() {
		if v := recover(); v != nil {
			item, err = nil, fmt.Errorf("%w: %v", ErrCut, v)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(s.text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCut, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, ErrCut
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, ErrCut
	}
	seq := doc.Content[0]
	if seq.Kind != yaml.SequenceNode || seq.Style != 0 || len(seq.Content) != 1 {
		return nil, ErrCut
	}
	item = seq.Content[0]
	moveLines(item, s.line-1)
	return item, nil
}

// moveLines adds by to the line of n and of every node under it.
func moveLines(n *yaml.Node, by int) {
	n.Line += by
	for _, c := range n.Content {
		moveLines(c, by)
	}
}

// cutSequence finds the block sequence under the top-level key in data and
// returns data with it taken out (its key's line reads "key: []" and every
// line of the sequence is left empty, so the other lines keep their numbers)
// and the text of each item; nil when the text is not plain enough to cut
// safely (see ParseCut).
func cutSequence(data []byte, key string) ([]byte, *cut) {
	if bytes.ContainsAny(data, "\r\u0085\u2028\u2029") || bytes.HasPrefix(data, []byte("%")) || bytes.Contains(data, []byte("\n%")) {
		return nil, nil
	}
	c := &cut{}
	start := -1 // the key's line: "key:" in column 0, then nothing but a comment
	for off, line := 0, 1; off < len(data); off, line = lineEnd(data, off)+1, line+1 {
		if l := data[off:lineEnd(data, off)]; bytes.HasPrefix(l, []byte(key+":")) && onlyComment(l[len(key)+1:]) {
			start, c.line = off, line
			break
		}
	}
	if start < 0 {
		return nil, nil
	}
	indent := -1 // the items' indentation, once the first is found
	item, end := 0, len(data)
	line := c.line
	for off := lineEnd(data, start) + 1; off < len(data) && end == len(data); off = lineEnd(data, off) + 1 {
		line++
		l := data[off:lineEnd(data, off)]
		n := leadingSpaces(l)
		body := l[n:]
		switch {
		case indent >= 0 && n > indent:
			// Inside the item.
		case len(body) > 0 && body[0] == '\t':
			return nil, nil // a tab in the indentation
		case len(body) == 0, body[0] == '#':
			// A blank line or a comment belongs to the item above.
		case indent < 0:
			if !isItem(body) {
				return nil, nil
			}
			indent, item = n, off
			c.items = append(c.items, span{line: line})
		case n == indent && isItem(body):
			c.items[len(c.items)-1].text = data[item:off]
			item = off
			c.items = append(c.items, span{line: line})
		case n == 0:
			end = off // the next top-level key
		default:
			return nil, nil
		}
	}
	if indent < 0 {
		return nil, nil
	}
	c.items[len(c.items)-1].text = data[item:end]
	rest := make([]byte, 0, len(data)-end+start+len(key)+3+bytes.Count(data[start:end], []byte("\n")))
	rest = append(rest, data[:start]...)
	rest = append(rest, key+": []"...)
	for _, b := range data[start:end] {
		if b == '\n' {
			rest = append(rest, '\n')
		}
	}
	return append(rest, data[end:]...), c
}

// lineEnd is the offset of the line break ending the line that starts at
// off, or len(data) for the last line.
func lineEnd(data []byte, off int) int {
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(data)
}

// leadingSpaces counts the spaces l starts with.
func leadingSpaces(l []byte) int {
	n := 0
	for n < len(l) && l[n] == ' ' {
		n++
	}
	return n
}

// onlyComment reports whether what follows a key's colon leaves its value on
// the next lines: nothing, spaces, or spaces and a comment.
func onlyComment(s []byte) bool {
	t := bytes.TrimLeft(s, " ")
	return len(t) == 0 || (len(t) < len(s) && t[0] == '#')
}

// isItem reports whether a line's text after its indentation starts a block
// sequence item: "-" alone or followed by a space.
func isItem(body []byte) bool {
	return len(body) > 0 && body[0] == '-' && (len(body) == 1 || body[1] == ' ')
}
