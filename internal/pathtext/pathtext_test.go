package pathtext

import (
	"strings"
	"testing"
)

func TestReplace(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/tmp/a", "$W"},
		{"cd /tmp/a && ls", "cd $W && ls"},
		{"/tmp/a/notes.txt", "$W/notes.txt"},
		{`{"path":"/tmp/a/x"}`, `{"path":"$W/x"}`},
		{"it works in /tmp/a.", "it works in $W."},
		{"it works in /tmp/a...", "it works in $W..."},
		{"/tmp/ab", "/tmp/ab"},
		{"/tmp/a.txt", "/tmp/a.txt"},
		{"/tmp/a-b /tmp/a_b /tmp/a~", "/tmp/a-b /tmp/a_b /tmp/a~"},
		{"/srv/tmp/a", "/srv/tmp/a"},
		{"x/tmp/a", "x/tmp/a"},
		{"/tmp/ab and /tmp/a", "/tmp/ab and $W"},
		{"/tmp/a/tmp/a", "$W/tmp/a"},
		{"nothing here", "nothing here"},
	} {
		if got := Replace(tc.in, "/tmp/a", "$W"); got != tc.want {
			t.Errorf("Replace(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Replace("/tmp/a", "", "$W"); got != "/tmp/a" {
		t.Errorf("an empty path replaced: %q", got)
	}
}

// TestReplaceEscaped: the path is found written plainly or as a JSON
// string's inside writes it, any character escaped, under Replace's rules
// for a whole path, judged on the characters decoded.
func TestReplaceEscaped(t *testing.T) {
	const path = "/tmp/é🗂"
	for _, tc := range []struct{ in, want string }{
		{"/tmp/é🗂 and \\n", "$W and \\n"},
		{`\/tmp\/é🗂\/x`, `$E\/x`},
		{`\u002ftmp\u002F\u00e9\ud83d\uddc2\u002fx`, `$E\u002fx`},
		{`"\u002ftmp/\u00E9🗂"`, `"$E"`},
		{`\u002ftmp\u002f\u00e9\ud83d\uddc2\u0078`, `\u002ftmp\u002f\u00e9\ud83d\uddc2\u0078`}, // escaped x continues the name
		{`\u002ftmp\u002f\u00e9\ud83d\uddc2\u002e`, `$E\u002e`},                                // a full stop ends it
		{`a\u002ftmp\u002f\u00e9\ud83d\uddc2`, `a\u002ftmp\u002f\u00e9\ud83d\uddc2`},           // so does a name before it
		{`\u0061\u002ftmp\u002f\u00e9\ud83d\uddc2`, `\u0061\u002ftmp\u002f\u00e9\ud83d\uddc2`}, // escaped or not
		{`\n/tmp/é🗂`, `\n$W`},                                                                  // an escape that is no name
		{`\u002ftmp\u002f\u00e9\ud83d`, `\u002ftmp\u002f\u00e9\ud83d`},                         // half a pair
		{`\u002ftmp\u002f\u00e9\ud83d\uddc2\u002ftmp\u002f\u00e9\ud83d\uddc2`, `$E$E`},         // past ASCII, no character continues a name (as Replace)
		{`\q \u12 \`, `\q \u12 \`},
	} {
		if got := ReplaceEscaped(tc.in, path, "$W", "$E"); got != tc.want {
			t.Errorf("ReplaceEscaped(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// A Windows path: its backslashes are escaped inside JSON, and a
	// backslash that starts no escape of one is itself.
	for _, tc := range []struct{ in, want string }{
		{`{"p":"C:\\Users\\me\\x"}`, `{"p":"$E\\x"}`},
		{`cd C:\Users\me`, `cd $W`},
		{`C:\Users\mex`, `C:\Users\mex`},
	} {
		if got := ReplaceEscaped(tc.in, `C:\Users\me`, "$W", "$E"); got != tc.want {
			t.Errorf("ReplaceEscaped(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestReplaceJSON: in a JSON text every match becomes the name as a JSON
// string holds it, and a string holding JSON that holds the path escaped
// (arguments inside a request body) is rewritten inside; other strings
// keep their bytes.
func TestReplaceJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":"/tmp/w/x","b":"\/tmp\/w"}`, `{"a":"/q\"d/x","b":"/q\"d"}`},
		{`{"args":"{\"p\":\"\\u002ftmp\\u002fw\\u002fx\"}","k":"\u002fkeep\n"}`, `{"args":"{\"p\":\"/q\\\"d\\u002fx\"}","k":"\u002fkeep\n"}`},
		{`{"args":"{\"p\":\"\\\/tmp\\\/w\"}"}`, `{"args":"{\"p\":\"/q\\\"d\"}"}`},
		{`{"k":"\\u002ftmp\\u002fwx"}`, `{"k":"\\u002ftmp\\u002fwx"}`},
		{`not json \u002ftmp\u002fw`, `not json /q\"d`},
		{`{"k":"nothing"}`, `{"k":"nothing"}`},
	} {
		if got := ReplaceJSON(tc.in, "/tmp/w", `/q"d`); got != tc.want {
			t.Errorf("ReplaceJSON(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestReplaceEscapedLettersAsThemselves: no encoder escapes an ASCII
// letter or digit, so a path whose letters are escaped is not the path
// (which lets a text without the path's last name be passed over).
func TestReplaceEscapedLettersAsThemselves(t *testing.T) {
	for _, in := range []string{`\u002f\u0074mp\u002fw1`, `\/tmp\/w\u0031`, `\/tmp\/x1 \n`} {
		if got := ReplaceEscaped(in, "/tmp/w1", "$W", "$E"); got != in {
			t.Errorf("ReplaceEscaped(%q) = %q, want it unchanged", in, got)
		}
	}
	if got := ReplaceEscaped(`\/tmp\/w1 \/tmp\/w1\/x`, "/tmp/w1", "$W", "$E"); got != `$E $E\/x` {
		t.Errorf("ReplaceEscaped = %q, want both found", got)
	}
}

// BenchmarkReplaceEscaped: a megabyte of text with escapes (so Replace's
// shortcut does not apply), without the path's last name (passed over)
// and with it but never the path (scanned whole).
func BenchmarkReplaceEscaped(b *testing.B) {
	const path = "/tmp/tapeloop-bridge-2768633777"
	for _, c := range []struct{ name, line string }{
		{"no anchor", "a line of code with a \\n escape and a /usr/lib path\n"},
		{"anchor", "a line of code with a \\n escape and 2768633777 in it\n"},
	} {
		s := strings.Repeat(c.line, 1<<20/len(c.line))
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				ReplaceEscaped(s, path, "/w", "/w")
			}
		})
	}
}
