package jsonschema

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// The messages are those santhosh-tekuri/jsonschema/v6 printed in English
// through golang.org/x/text/message: numbers are grouped in thousands
// ("1,000") and a float far from 1 is written with a superscript power of
// ten ("1.5×10⁰⁷").

// quote single-quotes s, escaping as Go does but for the double quote.
func quote(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q, `\"`, `"`)
	q = strings.ReplaceAll(q, `'`, `\'`)
	return "'" + q[1:len(q)-1] + "'"
}

func joinQuoted(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = quote(s)
	}
	return strings.Join(q, ", ")
}

// display renders a primitive value for a message.
func display(v any) string {
	switch v := v.(type) {
	case string:
		return quote(v)
	case []any, map[string]any:
		return "value"
	}
	return fmt.Sprintf("%v", v)
}

func enumMessage(want []any) string {
	for _, w := range want {
		switch w.(type) {
		case []any, map[string]any:
			return "'enum' failed"
		}
	}
	if len(want) == 1 {
		return "value must be " + display(want[0])
	}
	d := make([]string, len(want))
	for i, w := range want {
		d[i] = display(w)
	}
	return "value must be one of " + strings.Join(d, ", ")
}

// fmtInt writes n with its digits grouped in thousands.
func fmtInt(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	s = group(s)
	if neg {
		return "-" + s
	}
	return s
}

func group(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	first := len(digits) % 3
	if first > 0 {
		b.WriteString(digits[:first])
	}
	for i := first; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

var superscripts = []string{"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"}

// fmtRat writes r as the nearest float64, in the shortest form that reads
// back: plain with grouped thousands when its decimal exponent is from -4 to
// 5, else as d.ddd×10ⁿ with at least two exponent digits.
func fmtRat(r *big.Rat) string {
	f, _ := r.Float64()
	return fmtFloat(f)
}

func fmtFloat(f float64) string {
	if math.IsInf(f, 0) {
		if f < 0 {
			return "-∞"
		}
		return "∞"
	}
	sign := ""
	if f < 0 || (f == 0 && math.Signbit(f)) {
		sign = "-"
		f = -f
	}
	if f == 0 {
		return sign + "0"
	}
	// shortest digits and exponent: d.ddde±x
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	if exp < -4 || exp >= 6 {
		var b strings.Builder
		b.WriteString(sign)
		b.WriteString(digits[:1])
		if len(digits) > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteString("×10")
		if exp < 0 {
			b.WriteString("⁻")
			exp = -exp
		}
		es := strconv.Itoa(exp)
		if len(es) < 2 {
			es = "0" + es
		}
		for _, c := range es {
			b.WriteString(superscripts[c-'0'])
		}
		return b.String()
	}
	var intPart, frac string
	if exp < 0 {
		intPart = "0"
		frac = strings.Repeat("0", -exp-1) + digits
	} else if len(digits) > exp+1 {
		intPart, frac = digits[:exp+1], digits[exp+1:]
	} else {
		intPart = digits + strings.Repeat("0", exp+1-len(digits))
	}
	s := sign + group(intPart)
	if frac != "" {
		s += "." + frac
	}
	return s
}
