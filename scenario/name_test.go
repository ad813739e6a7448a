package scenario

import (
	"strings"
	"testing"
)

// TestNameIsValidatedAtLoad: a name that would lead out of the folder a
// trial is saved under, or drive a terminal, is an error naming the file,
// line and key (issue 21, item 8).
func TestNameIsValidatedAtLoad(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{`"../../etc/x"`, `has a ".." part`},
		{`a/../../b`, `has a ".." part`},
		{`./a`, `has a "." part`},
		{`/abs/x`, `is an absolute path`},
		{`a//b`, `has an empty part`},
		{`a/`, `has an empty part`},
		{`""`, `is empty`},
		{`"red\e[31m"`, `holds a control character`},
		{`"a\nb"`, `holds a control character`},
		{`'a\b'`, `holds a backslash`},
	} {
		src := "format: tapeloop/v1\nname: " + tc.name + "\ninput:\n  - {role: user, content: hi}\ntape: []\n"
		_, err := Parse([]byte(src), "s.yaml", "s")
		if err == nil || !strings.Contains(err.Error(), "s.yaml:2: name: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("name: %s: got %v, want s.yaml:2: name: ... %s", tc.name, err, tc.want)
		}
	}
	for _, ok := range []string{"files/append", "a.b/c-d_e", "über/名前", "trial-1"} {
		src := "format: tapeloop/v1\nname: " + ok + "\ninput:\n  - {role: user, content: hi}\ntape: []\n"
		if _, err := Parse([]byte(src), "s.yaml", "s"); err != nil {
			t.Errorf("name %q refused: %v", ok, err)
		}
	}
}

// TestGoldenPathOfEachExtension: a .yml scenario's golden is .golden.yml, and
// a file with neither extension gets .golden.yaml added.
func TestGoldenPathOfEachExtension(t *testing.T) {
	for in, want := range map[string]string{
		"files/edit.yml": "files/edit.golden.yml",
		"files/edit":     "files/edit.golden.yaml",
	} {
		if got := GoldenPath(in); got != want {
			t.Errorf("GoldenPath(%q) = %q, want %q", in, got, want)
		}
	}
}
