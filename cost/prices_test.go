package cost

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/fileerr"
)

// The bundled table reads, and every row says when and where its prices
// were read, with a cached price below the input price.
func TestBundledPrices(t *testing.T) {
	p := BundledPrices()
	providers := map[string]int{}
	for _, r := range p.Rows {
		providers[r.Provider]++
		if r.Date == "" || !strings.HasPrefix(r.Source, "https://") || r.Line == 0 {
			t.Errorf("%s: date %q, source %q, line %d", r.Model, r.Date, r.Source, r.Line)
		}
		if r.CachedInput >= r.Input || r.Output <= r.Input || r.MinCacheTokens < 1024 {
			t.Errorf("%s: input %v cached %v output %v min %d: not a cache discount", r.Model, r.Input, r.CachedInput, r.Output, r.MinCacheTokens)
		}
		if got := r.Rules(); got.Vendor != r.Provider || got.MinTokens != r.MinCacheTokens {
			t.Errorf("%s: rules %+v", r.Model, got)
		}
	}
	for _, v := range Vendors {
		if providers[v.Vendor] < 2 {
			t.Errorf("%d rows for %s, want a handful", providers[v.Vendor], v.Vendor)
		}
	}
}

func TestPricesLookup(t *testing.T) {
	p := &Prices{Rows: []Price{{Model: "gpt-4.1"}, {Model: "gpt-4.1-mini"}, {Model: "claude-sonnet-4-5"}, {Model: "anthropic.claude-sonnet-4-5"}, {Model: "gemini-2.5-flash"}}}
	for _, tt := range []struct{ model, want string }{
		{"gpt-4.1", "gpt-4.1"},
		{"gpt-4.1-mini", "gpt-4.1-mini"},
		{"gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"},
		{"gpt-4.1-2025-04-14", "gpt-4.1"},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"claude-sonnet-4-5@20250929", "claude-sonnet-4-5"},
		{"anthropic.claude-sonnet-4-5-20250929-v1:0", "anthropic.claude-sonnet-4-5"},
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", "anthropic.claude-sonnet-4-5"},
		{"models/gemini-2.5-flash", "gemini-2.5-flash"},
		{"gpt-4.10", ""},
		{"gpt-4", ""},
		{"claude-sonnet-4", ""},
		{"", ""},
	} {
		got, ok := p.Lookup(tt.model)
		if ok != (tt.want != "") || got.Model != tt.want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", tt.model, got.Model, ok, tt.want)
		}
	}
}

// Costs from a row's prices, worked by hand: 2M input tokens of which 1.2M
// read from the cache and 0.3M written, 0.1M output.
func TestPriceCost(t *testing.T) {
	p := Price{Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15}
	run := Run{InputTokens: 2_000_000, SharedTokens: 1_200_000, WriteTokens: 300_000, OutputTokens: 100_000}
	b := p.Cost(run)
	// without: 2M*3 + 0.1M*15 = 6 + 1.5; with: 0.5M*3 + 1.2M*0.3 + 0.3M*3.75 + 1.5
	if want := 7.5; math.Abs(b.WithoutCache-want) > 1e-9 {
		t.Errorf("without cache %v, want %v", b.WithoutCache, want)
	}
	if want := 1.5 + 0.36 + 1.125 + 1.5; math.Abs(b.WithCache-want) > 1e-9 {
		t.Errorf("with cache %v, want %v", b.WithCache, want)
	}
	if s := b.Add(b); math.Abs(s.WithCache-2*b.WithCache) > 1e-9 || math.Abs(s.WithoutCache-15) > 1e-9 {
		t.Errorf("Add: %+v", s)
	}
	// Recorded counts that overlap (more read and written than input) never
	// price input below nothing.
	if b := p.Cost(Run{InputTokens: 10, SharedTokens: 10, WriteTokens: 10}); b.WithCache < 0 {
		t.Errorf("with cache %v", b.WithCache)
	}
}

const row = `  - provider: openai
    model: house-model
    input: 1
    cached_input: 0.25
    cache_write: 1
    output: 4
    min_cache_tokens: 1024
    date: 2026-12-01
    source: https://example.com/prices
`

func TestParsePricesErrors(t *testing.T) {
	for _, tt := range []struct{ name, src, want string }{
		{"empty", ``, "p.yaml: prices: missing"},
		{"unknown top key", "price:\n" + row, `p.yaml:1: unknown key "price" (want prices)`},
		{"not a list", "prices: {}\n", "p.yaml:1: prices: want"},
		{"unknown row key", "prices:\n" + row + "    cache_read: 1\n", `p.yaml:11: prices[0]: unknown key "cache_read"`},
		{"missing key", "prices:\n" + strings.Replace(row, "    output: 4\n", "", 1), `p.yaml:2: prices[0]: missing key "output"`},
		{"negative price", "prices:\n" + strings.Replace(row, "output: 4", "output: -4", 1), "p.yaml:7: prices[0].output: want a price of 0 or more, got -4"},
		{"quoted price", "prices:\n" + strings.Replace(row, "output: 4", `output: "$4"`, 1), "p.yaml:7: prices[0].output: want a price in dollars per million tokens"},
		{"bad date", "prices:\n" + strings.Replace(row, "2026-12-01", "Dec 1", 1), `p.yaml:9: prices[0].date: want a date as YYYY-MM-DD, got "Dec 1"`},
		{"unknown provider", "prices:\n" + strings.Replace(row, "openai", "mistral", 1), `p.yaml:2: prices[0].provider: unknown value "mistral"`},
		{"source not a URL", "prices:\n" + strings.Replace(row, "https://example.com/prices", "the website", 1), `p.yaml:10: prices[0].source: want the https:// URL`},
		{"twice", "prices:\n" + row + row, `p.yaml:12: prices[1].model: "house-model" is priced already, at line 2`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePrices([]byte(tt.src), "p.yaml")
			var fe *fileerr.Error
			if !errors.Is(err, ErrPrices) || !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrPrices and a file error containing %q", err, tt.want)
			}
		})
	}
}

// A file of one's own replaces the bundled row of the same model and adds
// its others.
func TestLoadPricesOverrides(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prices.yaml")
	own := "prices:\n" + row + strings.Replace(strings.Replace(row, "house-model", "gpt-4.1", 1), "input: 1\n", "input: 1.5\n", 1)
	if err := os.WriteFile(path, []byte(own), 0o600); err != nil {
		t.Fatal(err)
	}
	q, err := LoadPrices(path)
	if err != nil {
		t.Fatal(err)
	}
	base := BundledPrices()
	p := base.With(q)
	if len(p.Rows) != len(base.Rows)+1 {
		t.Errorf("%d rows, want the bundled %d and house-model", len(p.Rows), len(base.Rows))
	}
	if r, _ := p.Lookup("gpt-4.1"); r.Input != 1.5 || r.File != path || r.Line != 11 {
		t.Errorf("gpt-4.1 = %+v, want the file's row (input 1.5, line 11)", r)
	}
	if r, _ := p.Lookup("gpt-4.1-mini"); r.File != "cost/prices.yaml" {
		t.Errorf("gpt-4.1-mini from %q, want the bundled row", r.File)
	}
	if r, ok := p.Lookup("house-model"); !ok || r.CachedInput != 0.25 {
		t.Errorf("house-model = %+v, %v", r, ok)
	}
	if _, err := LoadPrices(filepath.Join(t.TempDir(), "none.yaml")); !errors.Is(err, ErrPrices) || !strings.Contains(err.Error(), "none.yaml") {
		t.Errorf("missing file: %v", err)
	}
}
