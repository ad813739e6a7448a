package yamlx

import "testing"

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
