package eval

import (
	"time"

	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/scenario"
)

// Bootstrap settings of the comparison: fixed, so that the interval
// is the same on every run over the same data.
const (
	comparisonResamples  = 10000
	comparisonConfidence = 0.95
	comparisonSeed       = 1
)

// build assembles the report from the finished trials, in a fixed order:
// scenarios by name, models in the order given, trials by number.
func (r *runner) build(scenarios []*scenario.Scenario, wall time.Duration) *report.Eval {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := &report.Eval{Format: report.EvalFormat, Models: []report.EvalModel{}, Scenarios: []report.EvalScenario{}}
	rows := map[string][]*report.EvalScenario{}
	var latencies = map[string][]float64{}
	for si, s := range scenarios {
		for _, m := range r.opts.Models {
			row := report.EvalScenario{Name: s.Name, Path: s.Path, Tags: s.Tags, Model: m, Failures: map[string]int{}, TrialsDetail: []report.EvalTrial{}}
			if si < len(r.digests) {
				row.Digest = r.digests[si]
			}
			var lat []float64
			for n := 1; n <= r.opts.trials(); n++ {
				t := r.results[slot{si, m, n}]
				if t == nil {
					row.NotRun++
					continue
				}
				row.TrialsDetail = append(row.TrialsDetail, *t)
				switch t.Status {
				case report.StatusPass:
					row.Trials++
					row.Passed++
				case report.StatusFail:
					row.Trials++
					for _, k := range dedupe(t.FailureKeys) {
						row.Failures[k]++
					}
				case report.StatusError:
					row.Errors++
				}
				row.Tokens = row.Tokens.Add(t.Tokens)
				if t.Cost != nil {
					row.Cost = addCost(row.Cost, *t.Cost)
				}
				for _, c := range t.Tape {
					if c.Error == "" {
						lat = append(lat, c.LatencyMS)
					}
				}
			}
			row.Class = Class(row.Trials, row.Passed)
			row.PassAtK = kValues(row.Trials, row.Passed, PassAtK)
			row.PassHatK = kValues(row.Trials, row.Passed, PassHatK)
			row.LatencyMS = latency(lat)
			latencies[m] = append(latencies[m], lat...)
			out.Scenarios = append(out.Scenarios, row)
		}
	}
	for i := range out.Scenarios {
		rows[out.Scenarios[i].Model] = append(rows[out.Scenarios[i].Model], &out.Scenarios[i])
	}
	sum := &out.Summary
	sum.TrialsPerScenario = r.opts.trials()
	sum.MinPass = r.opts.MinPass
	if r.opts.MaxCost > 0 {
		c := r.opts.MaxCost
		sum.MaxCost = &c
	}
	sum.Stopped = r.stopped
	sum.WallMS = ms(wall)
	sum.OK = r.stopped != report.StoppedInterrupted
	for _, m := range r.opts.Models {
		em := r.modelRow(m, rows[m], latencies[m])
		sum.OK = sum.OK && em.MeetsMinPass
		sum.Trials += em.Trials
		sum.Passed += em.Passed
		sum.Failed += em.Trials - em.Passed
		sum.Errors += em.Errors
		sum.NotRun += em.NotRun
		sum.Tokens = sum.Tokens.Add(em.Tokens)
		if em.Cost != nil {
			sum.Cost = addCost(sum.Cost, *em.Cost)
		}
		out.Models = append(out.Models, em)
	}
	if len(r.opts.Models) == 2 {
		sum.Comparison = Compare(out, r.opts.Models[0], r.opts.Models[1])
	}
	return out
}

// modelRow aggregates one model's rows.
func (r *runner) modelRow(m string, rows []*report.EvalScenario, lat []float64) report.EvalModel {
	em := report.EvalModel{Name: m, Classes: map[string]int{}, LatencyMS: latency(lat)}
	minN := -1
	for _, row := range rows {
		em.Trials += row.Trials
		em.Passed += row.Passed
		em.Errors += row.Errors
		em.NotRun += row.NotRun
		em.Classes[row.Class]++
		em.Tokens = em.Tokens.Add(row.Tokens)
		if row.Cost != nil {
			em.Cost = addCost(em.Cost, *row.Cost)
		}
		for _, t := range row.TrialsDetail {
			em.ModelCalls += len(t.Tape)
		}
		if row.Trials > 0 && (minN < 0 || row.Trials < minN) {
			minN = row.Trials
		}
	}
	if _, priced := r.opts.Prices[m]; priced && em.Cost == nil {
		em.Cost = addCost(nil, 0)
	}
	em.PassAtK, em.PassHatK = map[int]float64{}, map[int]float64{}
	for k := 1; k <= minN; k++ {
		var at, hat float64
		var n int
		for _, row := range rows {
			if row.Trials > 0 {
				at += row.PassAtK[k]
				hat += row.PassHatK[k]
				n++
			}
		}
		em.PassAtK[k], em.PassHatK[k] = at/float64(n), hat/float64(n)
	}
	if em.Trials > 0 {
		em.PassRate = float64(em.Passed) / float64(em.Trials)
	}
	if sp := r.spans[m]; sp != nil {
		em.WallMS = ms(sp.end.Sub(sp.start))
	}
	switch {
	case em.Trials == 0:
		em.MeetsMinPass = false
	case r.opts.MinPass == nil:
		em.MeetsMinPass = em.Passed == em.Trials
	default:
		em.MeetsMinPass = em.PassRate >= *r.opts.MinPass
	}
	return em
}

func latency(xs []float64) report.Latency {
	return report.Latency{P50: Percentile(xs, 50), P95: Percentile(xs, 95)}
}

func addCost(c *float64, v float64) *float64 {
	s := v
	if c != nil {
		s += *c
	}
	return &s
}

// dedupe returns keys without repeats, in first-seen order: a trial counts
// once per expectation however many of its messages name it.
func dedupe(keys []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
