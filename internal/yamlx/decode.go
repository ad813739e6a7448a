// Package yamlx walks yaml.v3 nodes strictly, so that every problem in a
// scenario or tape file is reported as "file:line: key: problem", and builds
// the nodes of canonical YAML output.
package yamlx

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/fileerr"
)

// ErrFormat is the Kind of every *fileerr.Error this package makes.
var ErrFormat = errors.New("invalid file")

// Decoder reports problems against one file.
type Decoder struct {
	// File is the file name put in every error; empty means unknown.
	File string
	// In names what the file holds, for messages such as "aliases are not
	// supported in a tape"; empty leaves the phrase out.
	In string
	// Count names a sequence inside each item of the sequence ParseCut
	// cuts that EachItem counts rather than parses when it is longer than
	// a caller reads (see Counted); the zero value counts none.
	Count Counted

	cut *cut // what ParseCut took out of the document, for EachItem
}

// Errf returns a *fileerr.Error at n's line.
func (d *Decoder) Errf(n *yaml.Node, key, format string, args ...any) error {
	e := &fileerr.Error{Kind: ErrFormat, File: d.File, Key: key, Problem: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line = n.Line
	}
	return e
}

var syntaxLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// SyntaxError turns an error of yaml.v3's decoder into a *fileerr.Error, taking the
// line out of the message when it has one.
func (d *Decoder) SyntaxError(err error) error {
	return d.syntaxError(err, nil)
}

// syntaxError is SyntaxError with the parsed data, to find the line of an
// error yaml.v3 gives none (an undefined anchor) and to correct the line of
// a parser error, which yaml.v3 counts from 0.
func (d *Decoder) syntaxError(err error, data []byte) error {
	msg := err.Error()
	if m := syntaxLine().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if isParserProblem(m[2]) {
			line++
		}
		return &fileerr.Error{Kind: ErrFormat, File: d.File, Line: line, Problem: "invalid YAML: " + m[2]}
	}
	problem := strings.TrimPrefix(msg, "yaml: ")
	line := 0
	switch m := unknownAnchor().FindStringSubmatch(problem); {
	case m != nil && data != nil:
		line = anchorLine(data, m[1])
	case isParserProblem(problem):
		line = 1
	}
	return &fileerr.Error{Kind: ErrFormat, File: d.File, Line: line, Problem: "invalid YAML: " + problem}
}

// Parse parses data as one YAML document and returns its root node (nil for an
// empty document). A syntax error carries the file and line, including one
// after a '---' that starts a second document.
func (d *Decoder) Parse(data []byte) (root *yaml.Node, err error) {
	defer func() {
		if v := recover(); v != nil {
			root, err = nil, &fileerr.Error{Kind: ErrFormat, File: d.File, Problem: fmt.Sprintf("invalid YAML: %v", v)}
		}
	}()
	if err := d.checkText(data); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, d.syntaxError(err, data)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, d.syntaxError(err, data)
		}
		return nil, &fileerr.Error{Kind: ErrFormat, File: d.File, Line: extra.Line, Problem: "more than one YAML document (remove the '---')"}
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return doc.Content[0], nil
	}
	return &doc, nil
}

// Describe names the kind of value n holds, for "want X, got Y" messages.
func Describe(n *yaml.Node) string {
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

// Want checks that n is of the given kind and not an alias.
func (d *Decoder) Want(n *yaml.Node, key string, kind yaml.Kind) error {
	if n.Kind == yaml.AliasNode {
		if d.In != "" {
			return d.Errf(n, key, "aliases are not supported in %s (write the value out)", d.In)
		}
		return d.Errf(n, key, "aliases are not supported (write the value out)")
	}
	if n.Kind != kind {
		return d.Errf(n, key, "want %s, got %s", kindNames[kind], Describe(n))
	}
	return nil
}

// Keys is the set of keys Fields saw in a mapping, out of the ones it
// allowed. The zero value holds no key.
type Keys struct {
	allowed []string
	bits    uint64          // bit i: allowed[i] was seen, for i < 64
	more    map[string]bool // the keys seen past the 64th allowed; nil when none
}

// Has reports whether the mapping held key.
func (k Keys) Has(key string) bool {
	for i, a := range k.allowed {
		if a == key {
			if i < 64 {
				return k.bits&(1<<i) != 0
			}
			return k.more[key]
		}
	}
	return false
}

// Len returns the number of keys the mapping held.
func (k Keys) Len() int { return bits.OnesCount64(k.bits) + len(k.more) }

// add records that the mapping holds allowed[i] and reports whether it was
// seen before.
func (k *Keys) add(i int) (again bool) {
	if i < 64 {
		again = k.bits&(1<<i) != 0
		k.bits |= 1 << i
		return again
	}
	key := k.allowed[i]
	if k.more == nil {
		k.more = map[string]bool{}
	}
	again = k.more[key]
	k.more[key] = true
	return again
}

// Fields calls fn for each key of mapping n in document order, rejecting a
// non-scalar key and an unknown key (both naming the allowed ones) and a
// duplicate. It returns the keys seen.
func (d *Decoder) Fields(n *yaml.Node, path string, allowed []string, fn func(key string, v *yaml.Node) error) (Keys, error) {
	if err := d.Want(n, path, yaml.MappingNode); err != nil {
		return Keys{}, err
	}
	seen := Keys{allowed: allowed}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return Keys{}, d.Errf(k, path, "want a plain key, got %s (want %s)", Describe(k), strings.Join(allowed, ", "))
		}
		known := slices.Index(allowed, k.Value)
		if known < 0 {
			return Keys{}, d.Errf(k, path, "unknown key %q (want %s)", k.Value, strings.Join(allowed, ", "))
		}
		if seen.add(known) {
			return Keys{}, d.Errf(k, path, "duplicate key %q", k.Value)
		}
		if err := fn(k.Value, v); err != nil {
			return Keys{}, err
		}
	}
	return seen, nil
}

// Pairs calls fn for each key and value of mapping n in document order, for
// mappings whose keys are data (file names, call ids), rejecting duplicates.
func (d *Decoder) Pairs(n *yaml.Node, path string, fn func(key string, k, v *yaml.Node) error) error {
	if err := d.Want(n, path, yaml.MappingNode); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return d.Errf(k, path, "want a plain key, got %s", Describe(k))
		}
		if seen[k.Value] {
			return d.Errf(k, path, "duplicate key %q", k.Value)
		}
		seen[k.Value] = true
		if err := fn(k.Value, k, v); err != nil {
			return err
		}
	}
	return nil
}

// Join appends a key to a path.
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Index appends a sequence index to a path.
func Index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// Str decodes a string: a !!str scalar, a !!binary scalar (base64, for text
// that is not valid UTF-8) or null (the empty string). Numbers and booleans
// are refused, with a hint to quote them.
func (d *Decoder) Str(n *yaml.Node, path string) (string, error) {
	if err := d.Want(n, path, yaml.ScalarNode); err != nil {
		if n.Kind != yaml.AliasNode {
			return "", d.Errf(n, path, "want a string, got %s", Describe(n))
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
			return "", d.Errf(n, path, "invalid !!binary value: %v", err)
		}
		return string(b), nil
	}
	return "", d.Errf(n, path, "want a string, got %s; quote it", Describe(n))
}

// dropSpace drops the white space a !!binary value may be wrapped with.
func dropSpace(r rune) rune {
	switch r {
	case ' ', '\t', '\n', '\r':
		return -1
	}
	return r
}

// Strs decodes a sequence of strings; it is never nil.
func (d *Decoder) Strs(n *yaml.Node, path string) ([]string, error) {
	if err := d.Want(n, path, yaml.SequenceNode); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(n.Content))
	for i, c := range n.Content {
		s, err := d.Str(c, Index(path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Int decodes an integer in [min, max].
func (d *Decoder) Int(n *yaml.Node, path string, min, max int64) (int64, error) {
	if err := d.Want(n, path, yaml.ScalarNode); err != nil {
		return 0, err
	}
	if n.ShortTag() != "!!int" {
		return 0, d.Errf(n, path, "want an integer, got %s", Describe(n))
	}
	v, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil || v < min || v > max {
		return 0, d.Errf(n, path, "want an integer from %d to %d, got %s", min, max, n.Value)
	}
	return v, nil
}

// Unit decodes a number from 0 to 1 (an integer or a float), such as a
// score or a threshold.
func (d *Decoder) Unit(n *yaml.Node, path string) (float64, error) {
	if err := d.Want(n, path, yaml.ScalarNode); err != nil {
		return 0, err
	}
	if t := n.ShortTag(); t != "!!int" && t != "!!float" {
		return 0, d.Errf(n, path, "want a number from 0 to 1, got %s", Describe(n))
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
		return 0, d.Errf(n, path, "want a number from 0 to 1, got %s", n.Value)
	}
	return f, nil
}

// Bool decodes a boolean.
func (d *Decoder) Bool(n *yaml.Node, path string) (bool, error) {
	if err := d.Want(n, path, yaml.ScalarNode); err != nil {
		return false, err
	}
	if n.ShortTag() != "!!bool" {
		return false, d.Errf(n, path, "want true or false, got %s", Describe(n))
	}
	return n.Value == "true" || n.Value == "True" || n.Value == "TRUE", nil
}

// durationSyntax is the form of a Go duration, whatever its size.
var durationSyntax = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[-+]?([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+$`)
})

// DurationTooLarge reports whether s is written as a Go duration but
// time.ParseDuration refuses it, which happens only when it overflows (such
// as 9999999h).
func DurationTooLarge(s string) bool {
	if _, err := time.ParseDuration(s); err == nil || !durationSyntax().MatchString(s) {
		return false
	}
	return strings.ContainsAny(s, "0123456789")
}

// Duration decodes a Go duration string such as "100ms" or "2s".
func (d *Decoder) Duration(n *yaml.Node, path string) (time.Duration, error) {
	s, err := d.Str(n, path)
	if err != nil {
		return 0, err
	}
	v, err := time.ParseDuration(s)
	if err != nil && DurationTooLarge(s) {
		return 0, d.Errf(n, path, "%q is too large: a duration is at most %s", s, time.Duration(math.MaxInt64))
	}
	if err != nil || v < 0 {
		return 0, d.Errf(n, path, "want a duration such as 100ms or 2s, got %q", s)
	}
	return v, nil
}

// Enum decodes a string that must be one of allowed.
func (d *Decoder) Enum(n *yaml.Node, path string, allowed ...string) (string, error) {
	s, err := d.Str(n, path)
	if err != nil {
		return "", err
	}
	for _, a := range allowed {
		if s == a {
			return s, nil
		}
	}
	return "", d.Errf(n, path, "unknown value %q (want %s)", s, strings.Join(allowed, " | "))
}

// IsNull reports whether n is a null scalar (null, ~ or nothing).
func IsNull(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// Shape describes n for a message about a tool's `with:` option: "a
// mapping", "a list", "an alias", "a document", or a scalar's text quoted.
func Shape(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	}
	return fmt.Sprintf("%q", n.Value)
}
