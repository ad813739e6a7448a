// Package eval runs scenarios against live models, trial by trial, and
// scores them with their expect blocks: pass@k and pass^k per scenario ×
// model, flake classes, failures by expectation, tokens, cost and latency,
// and a comparison of two models (a hierarchical bootstrap over scenarios
// and trials; Fisher's exact test per scenario for two runs, Diff).
//
// A trial is one harness run of a scenario with a live model answering
// instead of the tape, a fresh workspace and fresh fixture tools, and the
// fixtures seeded from the scenario's seed and the trial's number
// (TrialSeed), so that a trial's fixtures behave the same on a rerun. Trials
// run concurrently (Options.Parallel) under per-provider rate limits
// (Options.Limits) with an adaptive backoff that all trials of a provider
// share and that honours Retry-After. A trial whose run ended because a model
// call failed is an error trial: retried up to Options.RetryErrors times,
// counted apart and left out of pass@k and pass^k.
//
//	r, err := eval.Run(ctx, scenarios, &eval.Options{
//		Models: []string{"openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-5"},
//		Trials: 5,
//	})
//	if err != nil {
//		return err // a model could not be opened, or a scenario has no expect block
//	}
//	report.WriteEval(os.Stdout, r)
//
// The result is a report.Eval (format tapeloop-eval/v1) listing scenarios,
// models and trials in a fixed order, whatever finished first.
package eval
