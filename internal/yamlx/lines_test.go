package yamlx

import (
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/tapeloop/tapeloop/fileerr"
)

// TestParseErrorsHaveTheirLine checks the class of YAML errors that came
// without a line, or with the wrong one: bytes that are not UTF-8, raw
// control characters, an alias of an undefined anchor, and parser errors
// (an unclosed bracket or brace, a missing key), whose line yaml.v3 counts
// from 0.
func TestParseErrorsHaveTheirLine(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"invalid UTF-8", "a: 1\nb: 2\nc: x\xffy\n",
			`f.yaml:3: invalid UTF-8 (byte 0xff at column 5); write text that is not UTF-8 as !!binary`},
		{"invalid UTF-8 on line 1", "\xfe: 1\n",
			`f.yaml:1: invalid UTF-8 (byte 0xfe at column 1); write text that is not UTF-8 as !!binary`},
		{"raw NUL", "a: 1\nb: \"x\x00y\"\n",
			`f.yaml:2: raw control character U+0000 at column 6; write it as \u0000 in a double-quoted string`},
		{"raw escape", "a: 1\nb: 2\nc: \x1b[31m\n",
			`f.yaml:3: raw control character U+001B at column 4; write it as \u001b in a double-quoted string`},
		{"undefined anchor", "a: 1\nb:\n  - *nope\n",
			`f.yaml:3: invalid YAML: unknown anchor 'nope' referenced`},
		{"unclosed bracket on line 3", "a: 1\nb: 2\nc: [\n",
			`f.yaml:3: invalid YAML: did not find expected node content`},
		{"unclosed brace on line 3", "a: 1\nb: 2\nc: [{x: 1}\n",
			`f.yaml:3: invalid YAML: did not find expected ',' or ']'`},
		{"unclosed bracket on line 1", "c: [\n",
			`f.yaml:1: invalid YAML: did not find expected node content`},
		{"scanner error keeps its line", "a: 1\n\t- b\n",
			`f.yaml:2: invalid YAML: found a tab character that violates indentation`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := (&Decoder{File: "f.yaml"}).Parse([]byte(c.src))
			if err == nil || err.Error() != c.want {
				t.Errorf("Parse(%q):\n got %v\nwant %s", c.src, err, c.want)
			}
		})
	}
	// Tabs, line ends, DEL-free text and any printable Unicode are fine.
	if _, err := (&Decoder{File: "f.yaml"}).Parse([]byte("a: \"t\\tb\"\r\nb: héllo ✓\n")); err != nil {
		t.Errorf("valid text refused: %v", err)
	}
}

// TestCheckTextRefusesEachControlByte checks every ASCII byte, alone and
// after multi-byte text, at the start, middle and end of a line: YAML allows
// tab, line feed and carriage return raw, and no other C0 control nor DEL;
// C1 controls (U+0080 to U+009F) are refused but U+0085 (next line).
func TestCheckTextRefusesEachControlByte(t *testing.T) {
	d := &Decoder{File: "f.yaml"}
	for c := rune(0); c < 0xa0; c++ {
		refused := (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f || (c >= 0x80 && c != 0x85)
		for _, text := range []string{string(c), "a: x" + string(c) + "y\n", "é: ✓\n" + string(c), "ab\n" + string(c) + "\n"} {
			err := d.checkText([]byte(text))
			if refused != (err != nil) {
				t.Errorf("checkText(%q) = %v; want refused %v", text, err, refused)
			}
		}
	}
}

// TestCheckTextWordAtATime checks that reading eight bytes at a time
// changes nothing: every byte value, and a few characters of two to four
// bytes (one cut short), at every place in and around an eight-byte word of
// printable text, after text of every length up to two words, gives the
// error (its line and column included) that checking byte by byte gives.
func TestCheckTextWordAtATime(t *testing.T) {
	d := &Decoder{File: "f.yaml"}
	var odd []string
	for c := range 256 {
		odd = append(odd, string([]byte{byte(c)}))
	}
	odd = append(odd, "é", "✓", "\U0001F600", "\u0085", "\u0080", "\u009f", "\xe2\x9c")
	printable := "ab: c-d\n~ x\t{}[]|>\"#%@`"
	for _, o := range odd {
		for before := 0; before <= 17; before++ {
			for _, after := range []int{0, 1, 7, 8, 9} {
				text := []byte(printable[:before%len(printable)] + o + printable[:after])
				got, want := d.checkText(text), checkTextByByte(d, text)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("checkText(%q) = %v; byte by byte %v", text, got, want)
				}
			}
		}
	}
	for w, want := range map[uint64]int{
		0x2020202020202020: 8, 0x7e7e7e7e7e7e7e7e: 8, 0: 0, 0x7f: 0, 0x7f41: 1, 0x1f41: 1,
		0x80414141: 3, 0x0a41414141414141: 7, 0x7f7f7f7f7f7f7f41: 1, 0xff20202020202020: 7,
	} {
		if got := printablePrefix(w); got != want {
			t.Errorf("printablePrefix(%#x) = %d, want %d", w, got, want)
		}
	}
}

// checkTextByByte is checkText reading one byte at a time, as it did before
// it read eight: the reference TestCheckTextWordAtATime compares with.
func checkTextByByte(d *Decoder, data []byte) error {
	for i := 0; i < len(data); {
		if c := data[i]; c < utf8.RuneSelf && !asciiRefused[c] {
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			line, col := position(data, i)
			return &fileerr.Error{Kind: ErrFormat, File: d.File, Line: line, Problem: fmt.Sprintf("invalid UTF-8 (byte %#x at column %d); write text that is not UTF-8 as !!binary", data[i], col)}
		}
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f || (r >= 0x80 && r < 0xa0 && r != 0x85) {
			line, col := position(data, i)
			return &fileerr.Error{Kind: ErrFormat, File: d.File, Line: line, Problem: fmt.Sprintf(`raw control character U+%04X at column %d; write it as \u%04x in a double-quoted string`, r, col, r)}
		}
		i += size
	}
	return nil
}
