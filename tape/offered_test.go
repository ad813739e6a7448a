package tape_test

import (
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/tape"
)

func TestDecodeOfferedSystemList(t *testing.T) {
	for src, want := range map[string][]string{"[Be terse., Use tools.]": {"Be terse.", "Use tools."}, "[]": {}} {
		tp, err := tape.Decode(strings.NewReader("format: tapeloop/v1\noffered:\n  system: "+src+"\ntape:\n  - response: {content: hi}\n"), "x.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if tp.Offered == nil || tp.Offered.System == nil || !slices.Equal(tp.Offered.System, want) {
			t.Errorf("system: %s decoded as %+v, want %q", src, tp.Offered, want)
		}
	}
}

// Several system prompts are written as a block sequence, one a line; an
// empty list as [].
func TestEncodeOfferedSystemLists(t *testing.T) {
	for _, tc := range []struct {
		system []string
		want   string
	}{
		{[]string{"one", "two"}, "system:\n    - one\n    - two\n"},
		{[]string{}, "system: []\n"},
	} {
		out, err := yaml.Marshal(tape.EncodeOffered(&tape.Offered{System: tc.system}))
		if err != nil || string(out) != tc.want {
			t.Errorf("system %q: %q, %v; want %q", tc.system, out, err, tc.want)
		}
	}
}
