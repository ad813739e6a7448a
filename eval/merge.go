package eval

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

// Merge combines the eval reports of the shards of one run (evalrun eval
// --shard i/n) into the report of the whole run. Every statistic is
// recomputed from the per-trial records, as Run computes it: never an
// average of averages. names[i] names parts[i] in errors. The shards must
// be each index of one total exactly once (report.CheckShards), ran the same
// models with the same trials per scenario, and hold each scenario once, in
// the shard its name hashes to. Wall times are the longest shard's (shards
// run side by side).
func Merge(names []string, parts []*report.Eval) (*report.Eval, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w: no reports given", report.ErrMerge)
	}
	shards := make([]*report.Shard, len(parts))
	for i, p := range parts {
		shards[i] = p.Shard
	}
	if err := report.CheckShards(names, shards); err != nil {
		return nil, err
	}
	opts := &Options{Prices: map[string]Price{}}
	var modelsFrom string
	wall := map[string]float64{}
	var summaryWall float64
	stopped := ""
	for i, p := range parts {
		if len(p.Models) == 0 { // an empty shard
			continue
		}
		models := make([]string, len(p.Models))
		for j, m := range p.Models {
			models[j] = m.Name
			wall[m.Name] = max(wall[m.Name], m.WallMS)
			if m.Cost != nil {
				opts.Prices[m.Name] = Price{}
			}
		}
		if opts.Models == nil {
			opts.Models, opts.Trials, opts.MinPass, modelsFrom = models, p.Summary.TrialsPerScenario, p.Summary.MinPass, names[i]
			if p.Summary.MaxCost != nil {
				opts.MaxCost = *p.Summary.MaxCost
			}
		}
		if !slices.Equal(models, opts.Models) || p.Summary.TrialsPerScenario != opts.Trials {
			return nil, fmt.Errorf("%w: %s ran %s with %d trials each, %s ran %s with %d: not shards of one run", report.ErrMerge,
				modelsFrom, strings.Join(opts.Models, ", "), opts.Trials, names[i], strings.Join(models, ", "), p.Summary.TrialsPerScenario)
		}
		summaryWall = max(summaryWall, p.Summary.WallMS)
		if stopped == "" {
			stopped = p.Summary.Stopped
		}
	}
	r := &runner{opts: opts, results: map[slot]*report.EvalTrial{}, spans: map[string]*span{}, stopped: stopped}
	for m, w := range wall {
		r.spans[m] = &span{end: time.Time{}.Add(fromMS(w))}
	}
	var scenarios []*scenario.Scenario
	index := map[string]int{}
	from := map[string]string{}
	digests := map[string]string{}
	for i, p := range parts {
		seen := map[string]bool{}
		for _, row := range p.Scenarios {
			if !p.Shard.Contains(row.Name) {
				return nil, fmt.Errorf("%w: %s: scenario %q does not belong to shard %s", report.ErrMerge, names[i], row.Name, p.Shard)
			}
			if other, dup := from[row.Name]; dup && other != names[i] {
				return nil, fmt.Errorf("%w: scenario %q is in both %s and %s (overlapping shards)", report.ErrMerge, row.Name, other, names[i])
			}
			if !seen[row.Name] {
				seen[row.Name] = true
				from[row.Name] = names[i]
				index[row.Name] = len(scenarios)
				scenarios = append(scenarios, &scenario.Scenario{Name: row.Name, Path: row.Path, Tags: row.Tags})
				digests[row.Name] = row.Digest
			}
			for j := range row.TrialsDetail {
				t := row.TrialsDetail[j]
				if err := checkTrial(&t, opts.Trials); err != nil {
					return nil, fmt.Errorf("%w: %s: scenario %q, model %s: %w", report.ErrMerge, names[i], row.Name, row.Model, err)
				}
				k := slot{index[row.Name], row.Model, t.Trial}
				if _, dup := r.results[k]; dup {
					return nil, fmt.Errorf("%w: %s: scenario %q, model %s: trial %d is listed twice", report.ErrMerge, names[i], row.Name, row.Model, t.Trial)
				}
				r.results[k] = &t
			}
		}
	}
	// Run lists scenarios by name; so does the merged report.
	order := slices.Clone(scenarios)
	slices.SortStableFunc(order, func(a, b *scenario.Scenario) int { return strings.Compare(a.Name, b.Name) })
	remapped := map[slot]*report.EvalTrial{}
	for k, t := range r.results {
		k.scenario = slices.Index(order, scenarios[k.scenario])
		remapped[k] = t
	}
	r.results = remapped
	for _, s := range order {
		r.digests = append(r.digests, digests[s.Name])
	}
	return r.build(order, fromMS(summaryWall)), nil
}

// checkTrial refuses a trial record merging would miscount: a number
// outside 1..trials, a status other than pass, fail and error, or a
// status that contradicts passed.
func checkTrial(t *report.EvalTrial, trials int) error {
	switch {
	case t.Trial < 1 || t.Trial > trials:
		return fmt.Errorf("trial %d is not one of 1..%d", t.Trial, trials)
	case t.Status != report.StatusPass && t.Status != report.StatusFail && t.Status != report.StatusError:
		return fmt.Errorf("trial %d: unknown status %q (want %s, %s or %s)", t.Trial, t.Status, report.StatusPass, report.StatusFail, report.StatusError)
	case t.Passed != (t.Status == report.StatusPass):
		return fmt.Errorf("trial %d: status %q with passed %v", t.Trial, t.Status, t.Passed)
	}
	return nil
}

// fromMS turns milliseconds back into the duration ms made them from,
// rounding so that ms(fromMS(x)) == x.
func fromMS(x float64) time.Duration {
	return time.Duration(math.Round(x * float64(time.Millisecond)))
}
