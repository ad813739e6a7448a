package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestRoundFloats: numbers with a fraction or an exponent keep six
// significant digits, written as encoding/json writes a float64; integers
// and strings are untouched.
func TestRoundFloats(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"pass_rate":0.09999999999999999}`, `{"pass_rate":0.1}`},
		{`[0.30000000000000004,-0.30000000000000004]`, `[0.3,-0.3]`},
		{`{"r":0.3333333333333333}`, `{"r":0.333333}`},
		{`{"ms":73812.34567}`, `{"ms":73812.3}`},
		{`{"cost":1.2345678e-07}`, `{"cost":1.23457e-7}`},
		{`{"big":1.23456789e+21}`, `{"big":1.23457e+21}`},
		{`{"seed":2612804094800205616,"n":-12}`, `{"seed":2612804094800205616,"n":-12}`},
		{`{"s":"0.30000000000000004","t":"a\"0.1000001\\"}`, `{"s":"0.30000000000000004","t":"a\"0.1000001\\"}`},
		{`{"0.30000000000000004":0.5}`, `{"0.30000000000000004":0.5}`},
	} {
		if got := string(roundFloats([]byte(tc.in))); got != tc.want {
			t.Errorf("roundFloats(%s) = %s; want %s", tc.in, got, tc.want)
		}
	}
}

// TestWriteEvalRoundsFloats: the eval report's rates, computed as sums of
// thirds and tenths, come out rounded.
func TestWriteEvalRoundsFloats(t *testing.T) {
	e := &Eval{Format: EvalFormat, Models: []EvalModel{{Name: "m", PassRate: 0.1 + 0.2, WallMS: 1.0 / 3}}}
	var buf bytes.Buffer
	if err := WriteEval(&buf, e); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{`"pass_rate": 0.3,`, `"wall_ms": 0.333333,`, "\n  \"models\": [\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasSuffix(out, "}\n") {
		t.Errorf("the report does not end with a newline: %q", out[len(out)-5:])
	}
}

// TestRoundFloatsAtTheEdges: a number or an unclosed string that ends the
// text is kept whole (no read past the end), and digits inside a string are
// never rounded.
func TestRoundFloatsAtTheEdges(t *testing.T) {
	for in, want := range map[string]string{
		`1.5`:                             `1.5`,
		`[0.1234567890]`:                  `[0.123457]`,
		`"abc`:                            `"abc`,
		`{"a":"x 0.1234567890123","b":1}`: `{"a":"x 0.1234567890123","b":1}`,
	} {
		if got := string(roundFloats([]byte(in))); got != want {
			t.Errorf("roundFloats(%s) = %s, want %s", in, got, want)
		}
	}
}
