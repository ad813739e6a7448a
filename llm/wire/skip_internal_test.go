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
		if k, _ := last.prefix([]byte(body)); k != want {
			t.Errorf("%s: skipped %d, want %d", body, k, want)
		}
	}
}

// TestBetweenNeedsRoom: a tail that would overlap the skipped messages is
// not taken (the body cannot be the one before with messages between).
func TestBetweenNeedsRoom(t *testing.T) {
	last := decoded{head: []byte(`{"messages":[`), raw: []json.RawMessage{json.RawMessage(`{}`)}, tail: []byte(`{} ]}`)}
	body := []byte(`{"messages":[{} ]}`)
	k, p := last.prefix(body)
	if k != 1 {
		t.Fatalf("prefix %d, want 1", k)
	}
	if _, ok := last.between(body, k, p, bodyFuncs{reuse: func(any) {}}); ok {
		t.Error("between took a tail that overlaps the skipped message")
	}
}
