package tape

import (
	"strings"
	"testing"
)

// A cached count of zero that a tape states is the vendor's report that
// its cache read nothing; one it leaves out was not reported. Both survive
// encoding and decoding, and an old tape (no key) still loads as before.
func TestCachedZeroReportedOrNot(t *testing.T) {
	for _, tt := range []struct {
		usage    string
		reported bool
	}{
		{"{input_tokens: 10, cached_input_tokens: 0}", true},
		{"{input_tokens: 10, cache_write_tokens: 0}", true},
		{"{input_tokens: 10}", false},
		{"{input_tokens: 10, cached_input_tokens: 4}", false}, // a non-zero count reports itself
	} {
		src := "format: tapeloop/v1\ntape:\n  - response:\n      usage: " + tt.usage + "\n"
		tp, err := Decode(strings.NewReader(src), "x.yaml")
		if err != nil {
			t.Fatal(err)
		}
		u := tp.Entries[0].Response.Usage
		if u.CacheReported != tt.reported || !u.CacheKnown() != (tt.usage == "{input_tokens: 10}") {
			t.Errorf("%s: usage %+v, want CacheReported %v", tt.usage, u, tt.reported)
		}
		var b strings.Builder
		if err := Encode(&b, tp); err != nil {
			t.Fatal(err)
		}
		back, err := Decode(strings.NewReader(b.String()), "x.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if got := back.Entries[0].Response.Usage; got != u {
			t.Errorf("%s: encoded as\n%s\nread back as %+v, want %+v", tt.usage, b.String(), got, u)
		}
	}
}
