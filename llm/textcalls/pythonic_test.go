package textcalls

import (
	"strings"
	"testing"
)

// TestPythonNames: a Python-style call's name and keywords are identifiers:
// a letter or _ first, then letters, digits and _; a call's name may also be
// dotted (brave_search.call) or hold a - after its first character.
func TestPythonNames(t *testing.T) {
	letter := func(b byte) bool { return b == '_' || ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z') }
	digit := func(b byte) bool { return '0' <= b && b <= '9' }
	for c := 0; c < 256; c++ {
		b := byte(c)
		for _, dotted := range []bool{false, true} {
			// b first: a name only when it is a letter or _.
			p := &pyParser{text: string([]byte{b}) + "x"}
			want := ""
			if letter(b) {
				want = string([]byte{b}) + "x"
			}
			if got := p.ident(dotted); got != want {
				t.Errorf("ident(%q, dotted %v) = %q, want %q", p.text, dotted, got, want)
			}
			// b second: it continues the name when a letter, digit or _, or,
			// dotted, a . or -.
			p = &pyParser{text: "x" + string([]byte{b})}
			want = "x"
			if letter(b) || digit(b) || (dotted && (b == '.' || b == '-')) {
				want = p.text
			}
			if got := p.ident(dotted); got != want {
				t.Errorf("ident(%q, dotted %v) = %q, want %q", p.text, dotted, got, want)
			}
		}
	}
}

// TestPythonLiteralNestingLimit: a pythonic argument may nest lists and
// dicts maxLiteralDepth deep; deeper, the call is refused rather than read
// with unbounded recursion.
func TestPythonLiteralNestingLimit(t *testing.T) {
	lists := func(n int) string { return strings.Repeat("[", n) + "1" + strings.Repeat("]", n) }
	dicts := func(n int) string { return strings.Repeat("{'k': ", n) + "1" + strings.Repeat("}", n) }
	for _, tc := range []struct {
		name, value string
		ok          bool
	}{
		{"lists at the limit", lists(maxLiteralDepth), true},
		{"lists past the limit", lists(maxLiteralDepth + 1), false},
		{"dicts at the limit", dicts(maxLiteralDepth), true},
		{"dicts past the limit", dicts(maxLiteralDepth + 1), false},
	} {
		res := Extract("[note(text="+tc.value+")]", testTools(), nil)
		if got := len(res.Calls) == 1; got != tc.ok {
			t.Errorf("%s: extracted %v, want %v (envelope %q)", tc.name, got, tc.ok, res.Envelope)
		}
	}
}
