package wire

import (
	"encoding/json"
	"testing"
)

// TestSkipEndsWithTheValue: a skipped element must end where the
// previous request's ended. Elements a request decodes are objects, which
// end themselves, so only skip itself can show this for a number.
func TestSkipEndsWithTheValue(t *testing.T) {
	last := decoded{head: []byte(`{"messages":[`), raw: []json.RawMessage{json.RawMessage(`1`), json.RawMessage(`{}`)}}
	for body, want := range map[string]int{
		`{"messages":[1.5,{}]}`:     0,
		`{"messages":[10]}`:         0,
		`{"messages":[1e3]}`:        0,
		`{"messages":[1`:            0,
		`{"messages":[1,{}`:         1,
		`{"messages":[1]}`:          1,
		`{"messages":[ 1 ,{} ]}`:    2,
		`{"messages":[1,{}, 3]}`:    2,
		`{"messages":[1 {}]}`:       1,
		`{"messages": [1,{}]}`:      0,
		`{"model":"m","messages":[`: 0,
	} {
		if k, _ := last.skip([]byte(body)); k != want {
			t.Errorf("%s: skipped %d, want %d", body, k, want)
		}
	}
}
