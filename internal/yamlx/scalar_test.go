package yamlx

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestWriterTextMatchesMarshal checks Writer.Text and Writer.Quoted against
// Marshal for text starting with every printable ASCII byte (the writer
// covers all text; before, text starting with '{' fell back to yaml.v3's
// emitter, which allocated 150 times the golden's size).
func TestWriterTextMatchesMarshal(t *testing.T) {
	var texts []string
	for c := byte(' ' + 1); c < 0x7f; c++ {
		for _, rest := range []string{"", "x", "1", " y", ": z", "0.5", "s"} {
			texts = append(texts, string(c)+rest)
		}
	}
	for _, s := range texts {
		for _, quoted := range []bool{false, true} {
			n := Text(s)
			if quoted {
				n = Quoted(s)
			}
			want, err := Marshal(n)
			if err != nil {
				t.Fatal(err)
			}
			var w Writer
			if quoted {
				w.Quoted(s, false, 2)
			} else {
				w.Text(s, false, 2)
			}
			if got := string(w.Buf) + "\n"; got != string(want) {
				t.Errorf("Text(%q) quoted=%v: writer %q, Marshal %q", s, quoted, got, want)
			}
		}
	}
}

// TestResolveTag: resolveTag gives the tag yaml.v3 reads each plain scalar
// with (numbers in every base, signs, underscores, floats, timestamps,
// durations, words).
func TestResolveTag(t *testing.T) {
	for _, s := range []string{"1", "-1", "+1", "0x1F", "-0x1F", "+0x1F", "0o17", "-0o17", "0b101", "-0b101", "0777", "09",
		"1_000", "1__0", "0x_1F", "0xZZ", "1e3", "1e+21", "2.5e-7", "1E5", ".5", "-.5", "+.5", "1.", "1e", "e1", "12:30",
		"1.5s", "2001-12-14", "2001-12-14 21:59:43.10", "2001-12-14t21:59:43.10Z", "2001-13-45", "100000000000000000000",
		"18446744073709551615", "18446744073709551616", "-9223372036854775808", "-9223372036854775809", ".inf", "-.Inf",
		"+.INF", ".nan", ".NaN", ".x", "~", "null", "Null", "NULL", "nULL", "yes", "no", "on", "off", "y", "true", "True",
		"tRue", "<<", "<", "+", "abc", "0b", "0o", "0x", "-0b2", "0b1e"} {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte("k: "+s), &n); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got, want := resolveTag(s), n.Content[0].Content[1].Tag; got != want {
			t.Errorf("resolveTag(%q) = %s, yaml.v3 reads %s", s, got, want)
		}
	}
}
