package harness

import (
	"encoding/json"
	"math/big"
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
