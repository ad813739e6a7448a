package repair

// valid reports whether s is one valid JSON value with optional surrounding
// whitespace. It accepts exactly what json.Valid accepts (checked by FuzzRepair)
// but allocates nothing, even on invalid input, and stops at the first error.
func valid(s string) bool {
	v := validator{s: s}
	v.space()
	if !v.value(0) {
		return false
	}
	v.space()
	return v.i == len(s)
}

// validator is a strict JSON recogniser over s.
type validator struct {
	s string
	i int
}

func (v *validator) space() {
	for v.i < len(v.s) && isSpace(v.s[v.i]) {
		v.i++
	}
}

func (v *validator) lit(w string) bool {
	if len(v.s)-v.i >= len(w) && v.s[v.i:v.i+len(w)] == w {
		v.i += len(w)
		return true
	}
	return false
}

// maxValidDepth is encoding/json's nesting limit.
const maxValidDepth = 10000

// value recognises one value, nested at most maxValidDepth deep.
func (v *validator) value(depth int) bool {
	if v.i >= len(v.s) || depth > maxValidDepth {
		return false
	}
	switch c := v.s[v.i]; {
	case c == '{':
		v.i++
		v.space()
		if v.i < len(v.s) && v.s[v.i] == '}' {
			v.i++
			return true
		}
		for {
			v.space()
			if v.i >= len(v.s) || v.s[v.i] != '"' || !v.str() {
				return false
			}
			v.space()
			if v.i >= len(v.s) || v.s[v.i] != ':' {
				return false
			}
			v.i++
			v.space()
			if !v.value(depth + 1) {
				return false
			}
			v.space()
			if v.i >= len(v.s) {
				return false
			}
			if v.s[v.i] == '}' {
				v.i++
				return true
			}
			if v.s[v.i] != ',' {
				return false
			}
			v.i++
		}
	case c == '[':
		v.i++
		v.space()
		if v.i < len(v.s) && v.s[v.i] == ']' {
			v.i++
			return true
		}
		for {
			v.space()
			if !v.value(depth + 1) {
				return false
			}
			v.space()
			if v.i >= len(v.s) {
				return false
			}
			if v.s[v.i] == ']' {
				v.i++
				return true
			}
			if v.s[v.i] != ',' {
				return false
			}
			v.i++
		}
	case c == '"':
		return v.str()
	case c == '-' || isDigit(c):
		return v.number()
	case c == 't':
		return v.lit("true")
	case c == 'f':
		return v.lit("false")
	case c == 'n':
		return v.lit("null")
	}
	return false
}

// str recognises a string starting at its opening quote.
func (v *validator) str() bool {
	v.i++
	for v.i < len(v.s) {
		c := v.s[v.i]
		switch {
		case c == '"':
			v.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if v.i+1 >= len(v.s) {
				return false
			}
			switch v.s[v.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				v.i += 2
			case 'u':
				if v.i+5 >= len(v.s) || !isHex(v.s[v.i+2]) || !isHex(v.s[v.i+3]) || !isHex(v.s[v.i+4]) || !isHex(v.s[v.i+5]) {
					return false
				}
				v.i += 6
			default:
				return false
			}
		default:
			v.i++
		}
	}
	return false
}

// number recognises -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (v *validator) number() bool {
	s := v.s
	if s[v.i] == '-' {
		v.i++
	}
	switch {
	case v.i < len(s) && s[v.i] == '0':
		v.i++
	case v.i < len(s) && isDigit(s[v.i]):
		for v.i < len(s) && isDigit(s[v.i]) {
			v.i++
		}
	default:
		return false
	}
	if v.i < len(s) && s[v.i] == '.' {
		v.i++
		if v.i >= len(s) || !isDigit(s[v.i]) {
			return false
		}
		for v.i < len(s) && isDigit(s[v.i]) {
			v.i++
		}
	}
	if v.i < len(s) && (s[v.i] == 'e' || s[v.i] == 'E') {
		v.i++
		if v.i < len(s) && (s[v.i] == '+' || s[v.i] == '-') {
			v.i++
		}
		if v.i >= len(s) || !isDigit(s[v.i]) {
			return false
		}
		for v.i < len(s) && isDigit(s[v.i]) {
			v.i++
		}
	}
	return true
}
