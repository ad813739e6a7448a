package cost

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/regularfile"
	"github.com/tapeloop/tapeloop/internal/yamlx"
)

// ErrPrices is wrapped by every error about a price table: a file that
// cannot be read, or a row with a missing, unknown or invalid key (a
// *fileerr.Error naming file, line and key).
var ErrPrices = errors.New("invalid price table")

// MaxPricesSize bounds a price table file; a larger one is refused.
const MaxPricesSize = 1 << 20

// Price is one row of a price table: what a model costs, in US dollars per
// million tokens, as read from Source on Date.
type Price struct {
	// Provider is the vendor whose cache rules apply: "openai",
	// "anthropic", "gemini" or "bedrock" (VendorRules).
	Provider string
	// Model is the model's name as requests name it, without a date or
	// version suffix: "gpt-4.1", "claude-sonnet-4-5",
	// "anthropic.claude-sonnet-4-5" (Lookup).
	Model string
	// Input is the price of an input token not read from the cache,
	// CachedInput of one read from it, CacheWrite of one written to it,
	// Output of an output token.
	Input, CachedInput, CacheWrite, Output float64
	// MinCacheTokens is the shortest prefix the model's cache keeps; it
	// replaces the vendor rules' MinTokens (Rules).
	MinCacheTokens int
	// Date is the day the row was read from Source, as YYYY-MM-DD.
	Date string
	// Source is the URL of the vendor's pricing page.
	Source string
	// File and Line are where the row was read; empty and 0 for a row made
	// in code.
	File string
	Line int
}

// Rules returns the cache rules of p's provider with p's minimum.
func (p Price) Rules() Rules {
	r, _ := VendorRules(p.Provider)
	r.MinTokens = p.MinCacheTokens
	return r
}

// Bill is what a run costs at one price, in US dollars.
type Bill struct {
	// WithCache counts cached input at the cached price and cache writes
	// at the write price; WithoutCache counts all input at the input
	// price. Both count output at the output price.
	WithCache, WithoutCache float64
}

// Add returns the sum of b and c.
func (b Bill) Add(c Bill) Bill {
	return Bill{WithCache: b.WithCache + c.WithCache, WithoutCache: b.WithoutCache + c.WithoutCache}
}

// Cost prices run at p.
func (p Price) Cost(run Run) Bill {
	fresh := max(run.InputTokens-run.SharedTokens-run.WriteTokens, 0)
	out := float64(run.OutputTokens) * p.Output
	return Bill{
		WithCache:    (float64(fresh)*p.Input + float64(run.SharedTokens)*p.CachedInput + float64(run.WriteTokens)*p.CacheWrite + out) / 1e6,
		WithoutCache: (float64(run.InputTokens)*p.Input + out) / 1e6,
	}
}

// Prices is a price table. The zero value holds no row.
type Prices struct {
	// Rows are the table's rows, in file order.
	Rows []Price
}

//go:embed prices.yaml
var bundled []byte

// BundledPrices returns the price table kept in the repository
// (cost/prices.yaml), dated row by row.
func BundledPrices() *Prices {
	p, err := ParsePrices(bundled, "cost/prices.yaml")
	if err != nil {
		panic(err) // a test reads it; it cannot fail at run time
	}
	return p
}

// LoadPrices reads the price table file at path (ParsePrices).
func LoadPrices(path string) (*Prices, error) {
	data, err := regularfile.Read(path, MaxPricesSize)
	if err != nil {
		return nil, &pricesError{fmt.Errorf("loading price table: %w", err)}
	}
	return ParsePrices(data, path)
}

var priceKeys = []string{"provider", "model", "input", "cached_input", "cache_write", "output", "min_cache_tokens", "date", "source"}

// ParsePrices decodes a price table: a mapping whose one key, prices, lists
// rows with every key of priceKeys. file names the table in errors, which
// carry the line and key of the problem and wrap ErrPrices.
func ParsePrices(data []byte, file string) (*Prices, error) {
	d := &yamlx.Decoder{File: file, In: "price table"}
	wrap := func(err error) error { return &pricesError{err} }
	root, err := d.Parse(data)
	if err != nil {
		return nil, wrap(err)
	}
	if root == nil {
		return nil, wrap(d.Errf(nil, "prices", "missing: the file is empty"))
	}
	var list *yaml.Node
	keys, err := d.Fields(root, "", []string{"prices"}, func(_ string, v *yaml.Node) error { list = v; return nil })
	if err != nil {
		return nil, wrap(err)
	}
	if !keys.Has("prices") {
		return nil, wrap(d.Errf(root, "prices", "missing"))
	}
	if err := d.Want(list, "prices", yaml.SequenceNode); err != nil {
		return nil, wrap(err)
	}
	p := &Prices{}
	seen := map[string]int{}
	for i, item := range list.Content {
		row, err := parseRow(d, item, yamlx.Index("prices", i))
		if err != nil {
			return nil, wrap(err)
		}
		if line, ok := seen[row.Model]; ok {
			return nil, wrap(d.Errf(valueOf(item, "model"), yamlx.Index("prices", i)+".model", "%q is priced already, at line %d", row.Model, line))
		}
		seen[row.Model] = row.Line
		p.Rows = append(p.Rows, row)
	}
	return p, nil
}

// pricesError is a problem in a price table: its text is the underlying
// error's ("file:line: key: problem"); it matches ErrPrices and the cause.
type pricesError struct{ err error }

func (e *pricesError) Error() string   { return e.err.Error() }
func (e *pricesError) Unwrap() []error { return []error{ErrPrices, e.err} }

// valueOf is the value of key in mapping n; n itself when it has none.
func valueOf(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return n
}

func parseRow(d *yamlx.Decoder, n *yaml.Node, path string) (Price, error) {
	row := Price{File: d.File, Line: n.Line}
	money := func(v *yaml.Node, key string) (float64, error) {
		if err := d.Want(v, key, yaml.ScalarNode); err != nil {
			return 0, err
		}
		if t := v.ShortTag(); t != "!!int" && t != "!!float" {
			return 0, d.Errf(v, key, "want a price in dollars per million tokens, got %s", yamlx.Describe(v))
		}
		f, err := strconv.ParseFloat(v.Value, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return 0, d.Errf(v, key, "want a price of 0 or more, got %s", v.Value)
		}
		return f, nil
	}
	keys, err := d.Fields(n, path, priceKeys, func(key string, v *yaml.Node) error {
		at := yamlx.Join(path, key)
		var err error
		switch key {
		case "provider":
			row.Provider, err = d.Enum(v, at, "openai", "anthropic", "gemini", "bedrock")
		case "model":
			row.Model, err = d.Str(v, at)
			if err == nil && strings.TrimSpace(row.Model) == "" {
				err = d.Errf(v, at, "empty")
			}
		case "input":
			row.Input, err = money(v, at)
		case "cached_input":
			row.CachedInput, err = money(v, at)
		case "cache_write":
			row.CacheWrite, err = money(v, at)
		case "output":
			row.Output, err = money(v, at)
		case "min_cache_tokens":
			var m int64
			m, err = d.Int(v, at, 0, 1<<30)
			row.MinCacheTokens = int(m)
		case "date":
			if err = d.Want(v, at, yaml.ScalarNode); err == nil {
				if _, perr := time.Parse(time.DateOnly, v.Value); perr != nil {
					err = d.Errf(v, at, "want a date as YYYY-MM-DD, got %q", v.Value)
				}
				row.Date = v.Value
			}
		case "source":
			row.Source, err = d.Str(v, at)
			if err == nil && !strings.HasPrefix(row.Source, "https://") {
				err = d.Errf(v, at, "want the https:// URL the price was read from, got %q", row.Source)
			}
		}
		return err
	})
	if err != nil {
		return Price{}, err
	}
	for _, k := range priceKeys {
		if !keys.Has(k) {
			return Price{}, d.Errf(n, path, "missing key %q (a row needs %s)", k, strings.Join(priceKeys, ", "))
		}
	}
	return row, nil
}

// With returns the table of p's rows, each replaced by the row of q that
// prices the same model, followed by q's other rows: q overrides p.
func (p *Prices) With(q *Prices) *Prices {
	out := &Prices{}
	for _, r := range p.Rows {
		if i := slices.IndexFunc(q.Rows, func(o Price) bool { return o.Model == r.Model }); i >= 0 {
			r = q.Rows[i]
		}
		out.Rows = append(out.Rows, r)
	}
	for _, r := range q.Rows {
		if !slices.ContainsFunc(p.Rows, func(o Price) bool { return o.Model == r.Model }) {
			out.Rows = append(out.Rows, r)
		}
	}
	return out
}

// Lookup returns the row that prices model, as a request names it: the row
// of that exact name, else the longest row name the model starts with
// followed by a dash, colon or at sign (a date or version suffix:
// "claude-sonnet-4-5-20250929", "anthropic.claude-haiku-4-5-20251001-v1:0").
// A leading "models/" (Gemini) or Bedrock region ("us.", "eu.", "apac.",
// "global.") is ignored. False when no row prices it.
func (p *Prices) Lookup(model string) (Price, bool) {
	model = strings.TrimPrefix(model, "models/")
	for _, region := range []string{"us.", "eu.", "apac.", "global.", "jp.", "au."} {
		if rest, ok := strings.CutPrefix(model, region); ok && strings.Contains(rest, ".") {
			model = rest
			break
		}
	}
	best := -1
	for i, r := range p.Rows {
		if r.Model == model {
			return r, true
		}
		rest, ok := strings.CutPrefix(model, r.Model)
		if ok && rest != "" && strings.ContainsRune("-:@", rune(rest[0])) && (best < 0 || len(r.Model) > len(p.Rows[best].Model)) {
			best = i
		}
	}
	if best < 0 {
		return Price{}, false
	}
	return p.Rows[best], true
}
