package report

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
)

// floatDigits is the number of significant digits a report's JSON keeps of
// every number with a fraction or an exponent: 0.1 + 0.2 is written 0.3, not
// 0.30000000000000004, and a pass rate 1/3 as 0.333333. Six digits keep a
// cost of a tenth of a microdollar and a latency of 0.1 ms over 10 seconds.
const floatDigits = 6

// WriteJSON writes v to w as every document of the family is written:
// indented by two spaces, followed by a newline, HTML characters not
// escaped, and every non-integer number rounded to six significant digits.
// It is for the JSON outputs of commands (evalrun lint --json, ...) that
// have no type in this package.
func WriteJSON(w io.Writer, v any) error { return writeJSON(w, v, false) }

// writeJSON writes v to w as JSON indented by two spaces and followed by a
// newline, HTML characters escaped when escapeHTML is set, with every
// non-integer number rounded to floatDigits significant digits (integers,
// such as seeds and counts, are left whole).
func writeJSON(w io.Writer, v any, escapeHTML bool) error {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, roundFloats(compact.Bytes()), "", "  "); err != nil {
		return err
	}
	_, err := w.Write(out.Bytes())
	return err
}

// roundFloats returns the JSON text data with each number that has a
// fraction or an exponent rounded to floatDigits significant digits and
// written as encoding/json writes a float64. Strings are copied unchanged.
func roundFloats(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(data))
			out = append(out, data[i:j]...)
			i = j
		case c == '-' || (c >= '0' && c <= '9'):
			j, float := i+1, false
			for j < len(data) && bytes.IndexByte([]byte("0123456789.eE+-"), data[j]) >= 0 {
				float = float || data[j] == '.' || data[j] == 'e' || data[j] == 'E'
				j++
			}
			out = append(out, roundNumber(data[i:j], float)...)
			i = j
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// roundNumber rounds one JSON number (see roundFloats); an integer, or a
// text that does not parse, comes back as it was.
func roundNumber(num []byte, float bool) []byte {
	if !float {
		return num
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		return num
	}
	f, _ = strconv.ParseFloat(strconv.FormatFloat(f, 'g', floatDigits, 64), 64)
	b, err := json.Marshal(f)
	if err != nil {
		return num
	}
	return b
}
