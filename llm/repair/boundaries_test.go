package repair

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestRepairNestingLimit: input nested exactly maxDepth deep is repaired;
// one level deeper is refused as too deep, never a stack overflow.
func TestRepairNestingLimit(t *testing.T) {
	for _, open := range []string{"[", `{"a":`} {
		in := strings.Repeat(open, maxDepth) + "1"
		out, fixes, err := Repair(in)
		if err != nil || !json.Valid([]byte(out)) || !reflect.DeepEqual(fixes, []string{FixCloseBrackets}) {
			t.Errorf("%q × %d: err %v, fixes %v, valid %v; want repaired with [%s]", open, maxDepth, err, fixes, json.Valid([]byte(out)), FixCloseBrackets)
		}
		_, _, err = Repair(strings.Repeat(open, maxDepth+1) + "1")
		if !errors.Is(err, ErrUnrepairable) || !strings.Contains(err.Error(), "nesting too deep") {
			t.Errorf("%q × %d: err %v, want nesting too deep", open, maxDepth+1, err)
		}
	}
}

// TestRepairBoundaries: the shortest inputs each rule accepts or reports.
func TestRepairBoundaries(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		fixes    []string
	}{
		// Leading prose of three words, the shortest stripped without a
		// colon or a line break.
		{`here it is {"a": 1}`, `{"a": 1}`, []string{FixStripProse}},
		// A comma before the first item is dropped and reported.
		{`[,1]`, `[1]`, []string{FixTrailingComma}},
		{`{,"a":1}`, `{"a":1}`, []string{FixTrailingComma}},
	} {
		out, fixes, err := Repair(tc.in)
		if err != nil || out != tc.want || !reflect.DeepEqual(fixes, tc.fixes) {
			t.Errorf("Repair(%q) = %q, %v, %v; want %q, %v", tc.in, out, fixes, err, tc.want, tc.fixes)
		}
	}
	// Two words before a brace are kept: the rule wants a colon, a line
	// break or at least three words.
	if _, _, err := Repair(`here is {"a": 1}`); err == nil {
		t.Errorf(`Repair("here is {…}") succeeded; want it refused`)
	}
}
