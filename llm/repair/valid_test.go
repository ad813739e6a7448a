package repair

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestValidAgreesAtNestingLimit: the strict validator (Repair's fast path)
// accepts exactly what encoding/json accepts at its nesting limit of 10000,
// for arrays and objects: one level less, at, and one more.
func TestValidAgreesAtNestingLimit(t *testing.T) {
	for _, depth := range []int{9999, 10000, 10001} {
		for _, c := range []struct{ open, close string }{{"[", "]"}, {`{"a":`, "}"}} {
			in := strings.Repeat(c.open, depth) + "1" + strings.Repeat(c.close, depth)
			if got, want := valid(in), json.Valid([]byte(in)); got != want {
				t.Errorf("%q × %d: valid = %v, json.Valid = %v", c.open, depth, got, want)
			}
		}
	}
}
