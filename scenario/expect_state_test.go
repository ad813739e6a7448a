package scenario_test

import (
	"testing"
)

// TestExpectStateUndecodableValue: a value YAML cannot decode (an explicit
// tag its text does not fit) is an error naming its key, not an expected
// null.
func TestExpectStateUndecodableValue(t *testing.T) {
	checkParseErrors(t, map[string]string{
		"expect:\n  state:\n    /cart/total: !!int three\n": "s.yaml:6: expect.state./cart/total: ",
		"expect:\n  state:\n    cart: !!int three\n":        "s.yaml:6: expect.state.cart: ",
	})
}

// TestExpectStateDecoded: expect.state is either the whole state (world
// names as keys; {} is an empty state) or values at JSON pointers, in file
// order; mixing the two is an error, whichever comes first.
func TestExpectStateDecoded(t *testing.T) {
	s := parseBody(t, "expect:\n  state:\n    /cart/items/0: apple\n    /cart/total: 3\n")
	st := s.Expect.State
	if st.Whole != nil || len(st.Pointers) != 2 || st.Pointers[0].Pointer != "/cart/items/0" || st.Pointers[0].Value != "apple" || st.Pointers[1].Value != 3.0 {
		t.Errorf("pointers: %+v; want /cart/items/0: apple, /cart/total: 3 and no whole state", st)
	}
	s = parseBody(t, "expect:\n  state:\n    cart: {total: 3, 1: one}\n")
	if got := s.Expect.State.Whole; len(got) != 1 || s.Expect.State.Pointers != nil {
		t.Errorf("whole state: %+v", s.Expect.State)
	} else if cart, _ := got["cart"].(map[string]any); cart["total"] != 3.0 || cart["1"] != "one" {
		t.Errorf("whole state: cart = %v; want total 3 and the key 1 as a string", got["cart"])
	}
	if s := parseBody(t, "expect:\n  state: {}\n"); s.Expect.State.Whole == nil || len(s.Expect.State.Whole) != 0 {
		t.Errorf("state: {} = %+v; want an empty whole state", s.Expect.State)
	}
	checkParseErrors(t, map[string]string{
		"expect:\n  state:\n    /a: 1\n    b: 2\n": "s.yaml:7: expect.state.b: mixes JSON pointers",
		"expect:\n  state:\n    b: 2\n    /a: 1\n": "s.yaml:7: expect.state./a: mixes JSON pointers",
		"expect:\n  state: [1]\n":                  "s.yaml:5: expect.state: want a mapping",
	})
}
