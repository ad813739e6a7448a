package scenario_test

import (
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
)

// TestRedactStrings checks that values under a path are redacted as YAML
// values, never as raw text: a plain value becomes a quoted string (not a
// flow sequence), a block text stays a block, keys stay, flow mappings are
// rewritten from the nearest block, and the rest of the file is kept byte
// for byte.
func TestRedactStrings(t *testing.T) {
	red := func(s string) string { return strings.ReplaceAll(s, "sk-1234", "[REDACTED]") }
	path := []string{"setup", "workspace", "files"}
	const head = "format: tapeloop/v1 # kept\nsetup:\n"
	const tail = "input: [{role: user, content: go}] # kept too\n"
	for _, c := range []struct{ name, in, want string }{
		{"plain", head + "  workspace:\n    files:\n      a.env: KEY=sk-1234\n      b.txt: fine\n" + tail,
			head + "  workspace:\n    files:\n      a.env: \"KEY=[REDACTED]\"\n      b.txt: fine\n" + tail},
		{"whole value", head + "  workspace:\n    files:\n      a.env: sk-1234\n" + tail,
			head + "  workspace:\n    files:\n      a.env: \"[REDACTED]\"\n" + tail},
		{"block text", head + "  workspace:\n    files:\n      a.env: |\n        x\n        KEY=sk-1234\n" + tail,
			head + "  workspace:\n    files:\n      a.env: |\n        x\n        KEY=[REDACTED]\n" + tail},
		{"a key is not a value", head + "  workspace:\n    files:\n      sk-1234.txt: x\n" + tail, ""},
		{"flow files", head + "  workspace:\n    files: {a.env: sk-1234, b: c}\n" + tail,
			head + "  workspace:\n    files: {a.env: \"[REDACTED]\", b: c}\n" + tail},
		{"flow workspace", head + "  workspace: {files: {a.env: sk-1234}}\n  seed: 3\n" + tail,
			head + "  workspace: {files: {a.env: \"[REDACTED]\"}}\n  seed: 3\n" + tail},
		{"nothing to redact", head + "  workspace:\n    files:\n      a.env: fine\n" + tail, ""},
		{"no files", head + "  seed: 3\n" + tail, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want == "" {
				want = c.in
			}
			got, err := scenario.RedactStrings([]byte(c.in), "s.yaml", path, red)
			if err != nil || string(got) != want {
				t.Errorf("got %v\n%s\nwant\n%s", err, got, want)
			}
		})
	}
}

// TestRedactAllStrings: every top-level value is redacted as RedactStrings
// redacts one, and a value nothing changes in keeps its bytes (comments,
// flow style, quoting).
func TestRedactAllStrings(t *testing.T) {
	red := func(s string) string { return strings.ReplaceAll(s, "sk-1234", "[REDACTED]") }
	in := "format: tapeloop/v1 # kept\n" +
		"description: never print sk-1234\n" +
		"setup:\n  workspace:\n    files: {a.env: KEY=sk-1234} # kept, the value quoted\n  seed: 3 # kept\n" +
		"input: [{role: user, content: 'use sk-1234'}]\n" +
		"expect: {final: {contains: \"ok\"}} # kept\n"
	want := "format: tapeloop/v1 # kept\n" +
		"description: \"never print [REDACTED]\"\n" +
		"setup:\n  workspace:\n    files: {a.env: \"KEY=[REDACTED]\"} # kept, the value quoted\n  seed: 3 # kept\n" +
		"input: [{role: user, content: 'use [REDACTED]'}]\n" +
		"expect: {final: {contains: \"ok\"}} # kept\n"
	got, err := scenario.RedactAllStrings([]byte(in), "s.yaml", red)
	if err != nil || string(got) != want {
		t.Errorf("got %v\n%s\nwant\n%s", err, got, want)
	}
	if _, err := scenario.RedactAllStrings([]byte("- a\n"), "s.yaml", red); err == nil {
		t.Error("a file that is not a mapping was accepted")
	}
}
