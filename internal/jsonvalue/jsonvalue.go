// Package jsonvalue compares and prints decoded JSON values exactly: numbers
// by their exact decimal value, objects whatever their key order.
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// sameNumber reports whether two JSON number literals have the same exact
// value. Neither is converted to a float: each is reduced to a sign, its
// significant digits and a power of ten, which takes time linear in the
// literal even for an exponent such as 1e999999999. Text that is not a JSON
// number equals only itself.
func sameNumber(a, b string) bool {
	if a == b {
		return true
	}
	na, okA := decimalOf(a)
	nb, okB := decimalOf(b)
	return okA && okB && na.neg == nb.neg && na.digits == nb.digits && na.exp.Cmp(nb.exp) == 0
}

// decimal is a number as ±0.digits × 10^exp with no leading or trailing zero
// digit; zero has no digits, no sign and exponent 0.
type decimal struct {
	neg    bool
	digits string
	exp    *big.Int
}

// decimalOf parses a JSON number literal (-?int(.frac)?([eE][+-]?exp)?).
func decimalOf(s string) (decimal, bool) {
	d := decimal{exp: new(big.Int)}
	if strings.HasPrefix(s, "-") {
		d.neg, s = true, s[1:]
	}
	mant, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" || !allDigits(intPart) || !allDigits(frac) {
		return decimal{}, false
	}
	if hasExp {
		if _, ok := d.exp.SetString(strings.TrimPrefix(expText, "+"), 10); !ok {
			return decimal{}, false
		}
	}
	digits := intPart + frac
	// value = digits × 10^(exp - len(frac)) = 0.digits × 10^(exp + len(intPart))
	d.exp.Add(d.exp, big.NewInt(int64(len(intPart))))
	trimmed := strings.TrimLeft(digits, "0")
	d.exp.Sub(d.exp, big.NewInt(int64(len(digits)-len(trimmed))))
	d.digits = strings.TrimRight(trimmed, "0")
	if d.digits == "" {
		return decimal{exp: new(big.Int)}, true
	}
	return d, true
}

// allDigits reports whether s is only ASCII digits (true for "").
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// plainNumbers returns v with each json.Number that a float64 holds exactly
// made that float64, so that it is written as before (2.0 as 2); a number no
// float64 holds (9007199254740993) keeps its literal, so a message never shows
// a value other than the one compared.
func plainNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		if err == nil && sameNumber(string(v), strconv.FormatFloat(f, 'g', -1, 64)) {
			return f
		}
		return v
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = plainNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = plainNumbers(e)
		}
		return out
	}
	return v
}

// Decode decodes one JSON value, numbers as json.Number (their literal
// text), so that Equal compares them exactly.
func Decode(raw []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one value")
	}
	return v, nil
}

// Equal compares decoded JSON values: objects by keys (order does not
// matter), arrays by element, numbers by exact value (1 equals 1.0 and 1e0;
// 9007199254740993 does not equal 9007199254740992).
func Equal(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		b, ok := b.(json.Number)
		return ok && sameNumber(string(a), string(b))
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !Equal(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		return ok && slices.EqualFunc(a, b, Equal)
	default:
		return a == b
	}
}

// Same reports whether two texts are equal JSON values (key order,
// whitespace and 1 vs 1.0 do not matter, see Equal); text that is not JSON
// is compared as is.
func Same(a, b string) bool {
	if a == b {
		return true
	}
	av, errA := Decode([]byte(a))
	bv, errB := Decode([]byte(b))
	return errA == nil && errB == nil && Equal(av, bv)
}

// Plain turns v into its plain JSON form by encoding and decoding it, so
// that two values compare equal exactly when their JSON does: objects are
// map[string]any, arrays []any, numbers float64.
func Plain(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// Canonical is v as compact JSON with sorted keys, for comparisons and
// messages.
func Canonical(v any) string {
	data, err := json.Marshal(plainNumbers(v))
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(data)
}

// SameText reports whether a and b are the same bytes, or JSON texts of
// the same value with numbers compared as written (key order and spacing do
// not matter; 1 and 1.0 differ, unlike Same). Text that is not one JSON
// value compares as bytes; empty equals empty.
func SameText(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	va, errA := Decode(a)
	vb, errB := Decode(b)
	return errA == nil && errB == nil && reflect.DeepEqual(va, vb)
}
