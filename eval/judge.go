package eval

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/report/fromharness"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// openJudges opens, once each, the judge models the scenarios'
// expect.judge items call (Options.JudgeModel for an item that names
// none), as the models under evaluation are opened, each behind its
// provider's rate gate. An item with no model and no default is an error
// naming its file and line, found before any trial runs.
func (r *runner) openJudges(ctx context.Context, scenarios []*scenario.Scenario) error {
	for _, s := range scenarios {
		names, err := JudgeModels(s, r.opts.JudgeModel)
		if err != nil {
			return err
		}
		for _, name := range names {
			if _, ok := r.judges[name]; ok {
				continue
			}
			m, ok := r.models[name]
			if !ok {
				if m, err = r.opts.open(ctx, name); err != nil {
					return err
				}
			}
			r.judges[name] = m
			if p := providerOf(name); r.gates[p] == nil {
				r.gates[p] = newGate(r.clock, r.opts.Limits[p])
			}
		}
	}
	return nil
}

// judge asks the judge models for the verdicts on sc's expect.judge items
// about o, each call through a meter as the trial's own calls are (its
// provider's gate, retries), and records in et the verdicts, the judge
// calls' tokens and their cost (Options.Prices of the judge model, added
// to et.Cost). The error (a failed call, an answer that is no verdict)
// makes the trial an error trial.
func (r *runner) judge(ctx context.Context, sc *scenario.Scenario, o *harness.Outcome, et *report.EvalTrial) ([]tape.Verdict, error) {
	if sc.Expect == nil || len(sc.Expect.Judges) == 0 {
		return nil, nil
	}
	meters := map[string]*meter{}
	open := func(name string) (llm.Model, error) {
		m, ok := r.judges[name]
		if !ok {
			return nil, fmt.Errorf("%w: judge model %s was not opened", ErrOpen, name)
		}
		if meters[name] == nil {
			meters[name] = &meter{model: m, gate: r.gates[providerOf(name)], clock: r.clock, retries: r.opts.modelRetries()}
		}
		return meters[name], nil
	}
	verdicts, err := JudgeLive(ctx, sc, o, &JudgeOptions{Model: open, Default: r.opts.JudgeModel, Redactor: r.redactor})
	var tokens report.Tokens
	for _, name := range slices.Sorted(maps.Keys(meters)) {
		m := meters[name]
		var t report.Tokens
		for _, c := range m.calls {
			t = t.Add(c.tokens)
		}
		tokens = tokens.Add(t)
		if p, ok := r.opts.Prices[name]; ok {
			et.Cost = addCost(et.Cost, p.Cost(t))
		}
	}
	// The scenario has judge items, and JudgeLive opens (through open) the
	// first one's model before it can fail (openJudges made sure it names
	// one): meters is never empty here.
	et.JudgeTokens = &tokens
	et.Judge = fromharness.Verdicts(sc, o)
	if err != nil {
		for i := range et.Judge {
			et.Judge[i].Problem = err.Error()
		}
	}
	return verdicts, err
}
