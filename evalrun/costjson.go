package evalrun

import (
	"fmt"
	"io"

	"github.com/tapeloop/tapeloop/cost"
	"github.com/tapeloop/tapeloop/report"
)

// costFormat is the format of cost --json.
const costFormat = "tapeloop-cost/v1"

// costDocument is what cost --json writes: each scenario's measure and the
// suite's totals. docs/cost.md documents it.
type costDocument struct {
	Format string `json:"format"`
	// Scenarios are the selected scenarios in the order measured; never
	// nil.
	Scenarios []costScenario `json:"scenarios"`
	Suite     costSuite      `json:"suite"`
	// Interrupted is set when the command was stopped before the end.
	Interrupted bool `json:"interrupted"`
}

// costScenario is one scenario's costMeasure.
type costScenario struct {
	Name string `json:"name"`
	File string `json:"file"`
	// Error says why the scenario could not be measured; "" when it was,
	// and then the other fields are set.
	Error    string `json:"error"`
	Requests int    `json:"requests"`
	costTokens
	// Estimated is set when any count is an estimate rather than recorded
	// usage.
	Estimated bool `json:"estimated"`
	// CachedSource says where the cached counts come from: "reported"
	// when the vendor stated every request's (zero included), "estimated"
	// when it stated none, "mixed" between; "" when unmeasured.
	CachedSource string `json:"cached_source"`
	// Model is the model priced; "" when none is named.
	Model string `json:"model"`
	// Rules names the cache rules applied: generic, openai, anthropic,
	// gemini or bedrock.
	Rules string `json:"rules"`
	// Breakpoints says where the breakpoints of rules that need them
	// come from: "recorded" (every request's own), "assumed" (some request
	// recorded none, and two were assumed); "" for rules without.
	Breakpoints string `json:"breakpoints"`
	// Breakers are the places the prefix broke; never nil.
	Breakers []costBreaker `json:"breakers"`
	// Price is the table row that priced Model; nil when none did.
	Price *costPrice `json:"price"`
	// Cost is what the run costs at Price; nil when unpriced.
	Cost *costUSD `json:"cost_usd"`
}

// costTokens are the token counts of a run or a suite.
type costTokens struct {
	InputTokens      int     `json:"input_tokens"`
	CachedTokens     int     `json:"cached_tokens"`
	CacheWriteTokens int     `json:"cache_write_tokens"`
	OutputTokens     int     `json:"output_tokens"`
	CacheableShare   float64 `json:"cacheable_share"`
}

// costBreaker is one cost.StepBreaker.
type costBreaker struct {
	Request int    `json:"request"`
	Place   string `json:"place"`
	Part    string `json:"part"`
	Index   int    `json:"index"`
	Kind    string `json:"kind"`
}

// costPrice is one cost.Price row, in dollars per million tokens.
type costPrice struct {
	Provider       string  `json:"provider"`
	Model          string  `json:"model"`
	Input          float64 `json:"input"`
	CachedInput    float64 `json:"cached_input"`
	CacheWrite     float64 `json:"cache_write"`
	Output         float64 `json:"output"`
	MinCacheTokens int     `json:"min_cache_tokens"`
	Date           string  `json:"date"`
	Source         string  `json:"source"`
}

// costUSD is a cost.Bill.
type costUSD struct {
	WithCache    float64 `json:"with_cache"`
	WithoutCache float64 `json:"without_cache"`
}

// costSuite sums the measured scenarios.
type costSuite struct {
	Scenarios int `json:"scenarios"`
	Failed    int `json:"failed"`
	Requests  int `json:"requests"`
	costTokens
	// Priced counts the scenarios with a price; Cost sums theirs (zero
	// when none).
	Priced int     `json:"priced"`
	Cost   costUSD `json:"cost_usd"`
}

// cachedSource is costScenario.CachedSource for run.
func cachedSource(run cost.Run) string {
	switch n := run.CachedReported(); {
	case n == 0:
		return "estimated"
	case n == len(run.Steps):
		return "reported"
	}
	return "mixed"
}

func tokensOf(r cost.Run) costTokens {
	return costTokens{InputTokens: r.InputTokens, CachedTokens: r.SharedTokens, CacheWriteTokens: r.WriteTokens, OutputTokens: r.OutputTokens, CacheableShare: r.Share()}
}

// add records one scenario's measure, or the error that stopped it.
func (d *costDocument) add(name, file string, m *costMeasure, err error) {
	sc := costScenario{Name: name, File: file, Breakers: []costBreaker{}}
	d.Suite.Scenarios++
	if err != nil {
		sc.Error = err.Error()
		d.Suite.Failed++
		d.Scenarios = append(d.Scenarios, sc)
		return
	}
	sc.Requests, sc.costTokens, sc.Estimated, sc.Model, sc.Rules = m.requests, tokensOf(m.run), m.run.Estimated(), m.model, m.run.Rules.String()
	sc.CachedSource = cachedSource(m.run)
	switch {
	case !m.run.Rules.Breakpoints:
	case m.run.AssumedBreakpoints:
		sc.Breakpoints = "assumed"
	default:
		sc.Breakpoints = "recorded"
	}
	for _, b := range m.run.Breakers() {
		sc.Breakers = append(sc.Breakers, costBreaker{Request: b.Request, Place: b.Breaker.String(), Part: b.Part, Index: b.Index, Kind: string(b.Kind)})
	}
	if p := m.price; p != nil {
		sc.Price = &costPrice{Provider: p.Provider, Model: p.Model, Input: p.Input, CachedInput: p.CachedInput, CacheWrite: p.CacheWrite,
			Output: p.Output, MinCacheTokens: p.MinCacheTokens, Date: p.Date, Source: p.Source}
		sc.Cost = &costUSD{WithCache: m.bill.WithCache, WithoutCache: m.bill.WithoutCache}
		d.Suite.Priced++
		d.Suite.Cost.WithCache += m.bill.WithCache
		d.Suite.Cost.WithoutCache += m.bill.WithoutCache
	}
	s := &d.Suite
	s.Requests += m.requests
	s.InputTokens += m.run.InputTokens
	s.CachedTokens += m.run.SharedTokens
	s.CacheWriteTokens += m.run.WriteTokens
	s.OutputTokens += m.run.OutputTokens
	if s.InputTokens > 0 {
		s.CacheableShare = min(float64(s.CachedTokens)/float64(s.InputTokens), 1)
	}
	d.Scenarios = append(d.Scenarios, sc)
}

// print prints the suite's totals line.
func (s *costSuite) print(e *env) {
	fmt.Fprintf(e.stdout, "suite  %s, %s, cacheable share %.0f%% (%d of %d input tokens)",
		count(s.Scenarios-s.Failed, "scenario"), count(s.Requests, "request"), 100*s.CacheableShare, s.CachedTokens, s.InputTokens)
	if s.Priced > 0 {
		fmt.Fprintf(e.stdout, "; %d priced: %s with caching, %s without", s.Priced, dollars(s.Cost.WithCache), dollars(s.Cost.WithoutCache))
	}
	if s.Failed > 0 {
		fmt.Fprintf(e.stdout, "; %d failed", s.Failed)
	}
	fmt.Fprintln(e.stdout)
}

// WriteJSON writes the document as indented JSON.
func (d *costDocument) WriteJSON(w io.Writer) error { return report.WriteJSON(w, d) }

// count is n and its noun, "1 request", "3 requests".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
