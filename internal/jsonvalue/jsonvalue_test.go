package jsonvalue

import "testing"

func TestSameJSONNumbersExact(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{`{"id": 9007199254740993}`, `{"id": 9007199254740992}`, false},
		{`[9007199254740993]`, `[9007199254740993.0]`, true},
		{`{"n": 1}`, `{"n": 1.0}`, true},
		{`100`, `1e2`, true},
		{`1.5`, `15E-1`, true},
		{`0`, `-0.0`, true},
		{`0.1`, `0.10000000000000001`, false},
		{`-1`, `1`, false},
		{`1e999999999`, `10e999999998`, true},
		{`1e999999999`, `1e999999998`, false},
		{`"1"`, `1`, false},
	}
	for _, c := range cases {
		if got := Same(c.a, c.b); got != c.want {
			t.Errorf("Same(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestSameText(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[true,null]}`, `{ "b": [true, null], "a": 1 }`, true},
		{`{"a":1}`, `{"a":1.0}`, false}, // numbers as written
		{`{"a":"x"}`, `{"a":"\u0078"}`, true},
		{`{"a":1}`, `{"a":2}`, false},
		{``, ``, true},
		{`not json`, `not json`, true},
		{`not json`, `not  json`, false},
		{`{"a":1} {}`, `{"a":1}`, false}, // two values are not one
	}
	for _, c := range cases {
		if got := SameText([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("SameText(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
