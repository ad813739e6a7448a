package eval

import (
	"errors"
	"reflect"
	"testing"

	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/report"
)

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig([]byte(`prices:
  openai/gpt-4.1-mini: {input: 0.40, output: 1.6, cached: 0.1}
  anthropic/claude: {input: 3, output: 15}
limits:
  openai: {rpm: 500, tpm: 200000}
judge_model: openai/gpt-4.1
`), "evalrun.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Prices:     map[string]Price{"openai/gpt-4.1-mini": {Input: 0.4, Output: 1.6, Cached: 0.1}, "anthropic/claude": {Input: 3, Output: 15}},
		Limits:     map[string]Limit{"openai": {RPM: 500, TPM: 200000}},
		JudgeModel: "openai/gpt-4.1",
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got %+v; want %+v", c, want)
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"prices:\n  openai/m: {input: x}\n", `evalrun.yaml:2: prices.openai/m.input: want a non-negative number of US dollars per million tokens, got a string ("x")`},
		{"prices:\n  nomodel: {input: 1}\n", `evalrun.yaml:2: prices.nomodel: model name must be "PROVIDER/MODEL", got "nomodel"`},
		{"limits:\n  openai: {rpm: -1}\n", `evalrun.yaml:2: limits.openai.rpm: want an integer from 0 to 2147483647, got -1`},
		{"limits:\n  openai: {rps: 1}\n", `evalrun.yaml:2: limits.openai: unknown key "rps" (want rpm, tpm)`},
		{"judge_model: gpt\n", `evalrun.yaml:1: judge_model: model name must be "PROVIDER/MODEL", got "gpt"`},
		{"price: {}\n", `evalrun.yaml:1: unknown key "price" (want prices, limits, judge_model)`},
	} {
		_, err := ParseConfig([]byte(tc.in), "evalrun.yaml")
		if err == nil || err.Error() != tc.want || !errors.Is(err, yamlx.ErrFormat) {
			t.Errorf("%q: got %v; want %q", tc.in, err, tc.want)
		}
	}
}

func TestParsePrice(t *testing.T) {
	m, p, err := ParsePrice("openai/gpt-4.1=0.4,1.6,0.1")
	if err != nil || m != "openai/gpt-4.1" || p != (Price{Input: 0.4, Output: 1.6, Cached: 0.1}) {
		t.Errorf("got %q %+v %v", m, p, err)
	}
	for _, bad := range []string{"openai/m=1", "openai/m=1,2,3,4", "m=1,2", "openai/m=1,-2", "openai/m=1,NaN"} {
		if _, _, err := ParsePrice(bad); err == nil {
			t.Errorf("ParsePrice(%q) accepted it", bad)
		}
	}
}

func TestPriceCost(t *testing.T) {
	p := Price{Input: 2, Output: 8, Cached: 0.5}
	// 1000 input of which 400 cached, 100 output: 600*2 + 400*0.5 + 100*8 = 2200 per million.
	if got := p.Cost(report.Tokens{Input: 1000, Output: 100, Cached: 400}); !near(got, 2200/1e6) {
		t.Errorf("cost %v; want %v", got, 2200/1e6)
	}
	// No cached price: cached tokens cost the input price.
	if got := (Price{Input: 2, Output: 8}).Cost(report.Tokens{Input: 1000, Output: 100, Cached: 400}); !near(got, 2800/1e6) {
		t.Errorf("cost %v; want %v", got, 2800/1e6)
	}
}

// A price may be zero, and the cached price may be left out.
func TestParsePriceBoundaries(t *testing.T) {
	for s, want := range map[string]Price{
		"openai/m=0,0":     {},
		"openai/m=0.5,1.5": {Input: 0.5, Output: 1.5},
		"openai/m=1,2,0":   {Input: 1, Output: 2},
	} {
		if _, got, err := ParsePrice(s); err != nil || got != want {
			t.Errorf("ParsePrice(%q) = %+v, %v; want %+v", s, got, err, want)
		}
	}
}

// A price of 0 in the config file is a price (a free model), not an error.
func TestParseConfigZeroPrice(t *testing.T) {
	c, err := ParseConfig([]byte("prices:\n  local/free: {input: 0, output: 0.0}\n"), "evalrun.yaml")
	if err != nil || c.Prices["local/free"] != (Price{}) {
		t.Errorf("ParseConfig(price 0) = %+v, %v; want a zero price", c, err)
	}
}
