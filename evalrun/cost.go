package evalrun

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/tapeloop/tapeloop/cost"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

func init() {
	register(&command{name: "cost", summary: "replay scenarios and report how much of each request a prompt cache could reuse, and what it costs", run: runCost})
}

// costDoc is cost's --help text.
const costDoc = `Replays each scenario from its tape (no model is called, no golden is written)
and compares every model request with the one before it in the order a provider's
prompt cache reads it. Prints per scenario the cacheable share of input tokens and
each cache breaker with its place, as "request 2: system[0] changed", then the suite's
totals. Token counts are the tape's recorded usage where it holds them, else an
estimate of one token per four bytes (said as such).

The model a scenario is priced as is --model, else the one its requests name
(params.model). When the price table has a row for it, that vendor's cache rules
apply (minimum cached length, steps, breakpoints) and the cost with and without
caching is printed. The table is cost/prices.yaml, dated row by row; --prices FILE
adds rows and replaces those of the same model. Nothing is fetched. See
docs/cost.md.`

func runCost(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "cost", "evalrun cost [flags] [scenario files or folders (default: scenarios)]", costDoc)
	runRE := fs.String("run", "", "report only scenarios whose name matches this regular expression")
	pricesPath := fs.String("prices", "", "read prices from this YAML `FILE` too: its rows replace the bundled rows of the same model (docs/cost.md)")
	model := fs.String("model", "", "price every scenario as this `MODEL` (default: the model its requests name)")
	var jsonPath string
	addJSONFlag(fs, &jsonPath, costFormat)
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	var re *regexp.Regexp
	if *runRE != "" {
		var err error
		if re, err = regexp.Compile(*runRE); err != nil {
			fmt.Fprintf(e.stderr, "evalrun cost: --run: %v\n", err)
			return exitUsage
		}
	}
	prices := cost.BundledPrices()
	if *pricesPath != "" {
		own, err := cost.LoadPrices(*pricesPath)
		if err != nil {
			fmt.Fprintf(e.stderr, "evalrun cost: --prices: %v\n", err)
			return exitUsage
		}
		prices = prices.With(own)
	}
	if *model != "" {
		if _, ok := prices.Lookup(*model); !ok {
			fmt.Fprintf(e.stderr, "evalrun cost: --model: no price for %q in the table (add a row with --prices)\n", *model)
			return exitUsage
		}
	}
	targets, code := discover(e, "cost", args)
	if code != exitOK {
		return code
	}
	out := e // where --json - goes
	if jsonPath == "-" {
		text := *e
		text.stdout = e.stderr
		e = &text
	}
	doc := &costDocument{Format: costFormat, Scenarios: []costScenario{}}
	result, matched := exitOK, 0
	for _, t := range targets {
		if ctx.Err() != nil {
			break
		}
		s, skip, err := t.load(e, "cost")
		if skip {
			continue
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "evalrun cost: %v\n", err)
			result = exitUsage
			continue
		}
		if re != nil && !re.MatchString(s.Name) {
			continue
		}
		matched++
		m, err := measureCost(ctx, e, s, prices, *model)
		if err != nil {
			fmt.Fprintf(e.stdout, "FAIL  %s: %v\n", s.Name, err)
			doc.add(s.Name, t.path, nil, err)
			result = max(result, exitFailed)
			continue
		}
		m.print(e, s.Name)
		doc.add(s.Name, t.path, m, nil)
	}
	if matched == 0 && result == exitOK {
		fmt.Fprintln(e.stderr, "evalrun cost: no scenario matches")
		return exitUsage
	}
	doc.Interrupted = ctx.Err() != nil
	doc.Suite.print(e)
	if err := writeJSONOutput(out, jsonPath, doc.WriteJSON); err != nil {
		fmt.Fprintf(e.stderr, "evalrun cost: --json: %v\n", err)
		return exitUsage
	}
	return result
}

// costMeasure is one scenario's prefix stability and what it costs.
type costMeasure struct {
	requests int
	// model is the model priced: --model, else the one the requests name;
	// empty when neither names one.
	model string
	run   cost.Run
	// price is the row that priced model; nil when none did (the run is
	// then read under the generic rules).
	price *cost.Price
	bill  cost.Bill
}

// measureCost replays s from its tape, collecting its requests, and reads
// their prefix stability under the cache rules of the model they are priced
// as: model when not empty, else the one the requests name.
func measureCost(ctx context.Context, e *env, s *scenario.Scenario, prices *cost.Prices, model string) (*costMeasure, error) {
	var col cost.Collector
	o, err := e.run(ctx, s, &harness.RunOptions{Tools: e.tools, Observer: col.Observe})
	if err != nil {
		return nil, fmt.Errorf("the replay did not run: %w", err)
	}
	if o.Diverged || len(o.Unused) > 0 {
		return nil, fmt.Errorf("the replay did not follow its tape (%s replay %s shows why): its requests are not the recorded ones", e.prog(), s.Path)
	}
	if _, own, err := llm.ParseModelName(s.Setup.Loop.Model); model == "" && s.Setup.Agent == nil && err == nil {
		// A native scenario's own model, PROVIDER/MODEL, which its
		// requests name as such: priced as MODEL, as requests name it.
		model = own
	}
	return costOf(col.Calls(), prices, model)
}

// costOf reads calls as measureCost does.
func costOf(calls []cost.Call, prices *cost.Prices, model string) (*costMeasure, error) {
	m := &costMeasure{requests: len(calls), model: model}
	if m.model == "" {
		m.model = requestModel(calls)
	}
	rules := cost.Generic
	if p, ok := prices.Lookup(m.model); ok && m.model != "" {
		m.price, rules = &p, p.Rules()
	}
	run, err := rules.Analyze(calls)
	if err != nil {
		return nil, err
	}
	m.run = run
	if m.price != nil {
		m.bill = m.price.Cost(run)
	}
	return m, nil
}

// requestModel is the model the first request that names one names
// (params.model); empty when none does.
func requestModel(calls []cost.Call) string {
	for _, c := range calls {
		if raw, ok := c.Request.Params["model"]; ok {
			var name string
			if json.Unmarshal(raw, &name) == nil && name != "" {
				return name
			}
		}
	}
	return ""
}

// how says where a run's token counts come from.
func how(run cost.Run) string {
	switch {
	case len(run.Steps) > 0 && !run.Estimated() && run.SharedTokens == 0:
		// The vendor said its cache read nothing: not an estimate of 0.
		return "recorded: 0 cached, reported by the vendor"
	case len(run.Steps) > 0 && !run.Estimated():
		return "recorded"
	case recordedAny(run):
		return "recorded where the tape holds usage, else estimated"
	}
	return "estimated"
}

func recordedAny(run cost.Run) bool {
	for _, s := range run.Steps {
		if s.Recorded || s.InputRecorded {
			return true
		}
	}
	return false
}

// print prints one scenario's share, breakers and cost.
func (m *costMeasure) print(e *env, name string) {
	fmt.Fprintf(e.stdout, "cost  %s: %s, cacheable share %.0f%% (%d of %d input tokens, %s)\n",
		name, count(m.requests, "request"), 100*m.run.Share(), m.run.SharedTokens, m.run.InputTokens, how(m.run))
	for _, b := range m.run.Breakers() {
		fmt.Fprintf(e.stdout, "      request %d: %s\n", b.Request, b.Breaker)
	}
	if m.run.AssumedBreakpoints {
		fmt.Fprintf(e.stdout, "      breakpoints not recorded: assumed after the system prompt and on the last message\n")
	}
	switch {
	case m.price != nil:
		fmt.Fprintf(e.stdout, "      %s at %s's cache and prices of %s: %s with caching, %s without\n",
			m.model, m.price.Provider, m.price.Date, dollars(m.bill.WithCache), dollars(m.bill.WithoutCache))
	case m.model != "":
		fmt.Fprintf(e.stdout, "      %s: no price in the table (add a row with --prices)\n", m.model)
	}
}

// dollars prints an amount in US dollars to the hundredth of a cent's
// hundredth: runs of a few requests cost fractions of a cent.
func dollars(v float64) string { return fmt.Sprintf("$%.6f", v) }
